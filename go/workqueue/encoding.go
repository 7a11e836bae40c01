package workqueue

// The keys of a restart-safe queue: an item by value, so that another
// process finds it again. A string is its bytes; any other type its JSON,
// which is canonical (one encoding per value) for the types allowed:
// booleans, numbers, strings, and arrays and structs of them with
// exported fields only (cache.ObjectName, reconcile.Request). Pointers,
// interfaces, channels and unexported fields are refused: their JSON
// would not say the item.

import (
	"encoding/json"
	"fmt"
	"reflect"
)

type codec[T comparable] struct {
	str bool // T's kind is string: its bytes
}

func newCodec[T comparable]() (codec[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() == reflect.String {
		return codec[T]{str: true}, nil
	}
	if err := byValue(t); err != nil {
		return codec[T]{}, fmt.Errorf("items of %v cannot be kept by value: %v", t, err)
	}
	return codec[T]{}, nil
}

// byValue says why t's JSON does not say a value of it, or nil.
func byValue(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return nil
	case reflect.Array:
		return byValue(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("unexported field %s", f.Name)
			}
			if tag := f.Tag.Get("json"); tag == "-" {
				return fmt.Errorf("field %s is left out of JSON", f.Name)
			}
			if err := byValue(f.Type); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("a %v", t.Kind())
}

func (c codec[T]) encode(item T) ([]byte, error) {
	if c.str {
		return []byte(reflect.ValueOf(item).String()), nil
	}
	return json.Marshal(item)
}

func (c codec[T]) decode(key []byte) (T, error) {
	var item T
	if c.str {
		reflect.ValueOf(&item).Elem().SetString(string(key))
		return item, nil
	}
	err := json.Unmarshal(key, &item)
	return item, err
}
