// Package intern maps the items of a typed queue to the keys the kernel
// holds: each item is a small key there, an 8-byte id this process gives
// it, so items of any comparable type (pointers, structs) go through the
// kernel unchanged. An item's id lives while the kernel may hold the key
// (queued, processing, dirty, waiting, or its failures counted by the
// limiter): Done and Forget ask the kernel what it still holds of the
// key, and an id the kernel let go of is dropped, with the reference to
// the item, so that the item can be garbage collected.
//
// Each entry carries a value M of its queue's own (the metrics'
// bookkeeping), read and written only in the callbacks, under the
// interner's lock.
//
// Locking: each entry's op mutex is held across an add's system call and
// its bookkeeping, and across a Done's or Forget's and theirs, so that
// what the kernel said and what the entry records agree; the interner's
// mutex (taken inside op) guards the maps and the entries' fields.
package intern

import (
	"encoding/binary"
	"sync"
)

// Entry is an item and its id.
type Entry[T comparable, M any] struct {
	op   sync.Mutex // an add, or a Done or Forget, with its bookkeeping
	Item T
	Key  [8]byte // the id, little-endian: what the kernel holds
	// adds under way (from Acquire to AfterAdd): the entry stays
	inflight int
	// the kernel may hold the key: an add succeeded, and no Done or
	// Forget has said it let go since
	live bool
	meta M
}

// Interner holds the entries of one queue.
type Interner[T comparable, M any] struct {
	mu     sync.Mutex
	cond   sync.Cond // an entry's adds under way ended (HandedOut)
	byItem map[T]*Entry[T, M]
	byID   map[uint64]*Entry[T, M]
	next   uint64
}

// New makes an empty interner.
func New[T comparable, M any]() *Interner[T, M] {
	in := &Interner[T, M]{byItem: map[T]*Entry[T, M]{}, byID: map[uint64]*Entry[T, M]{}}
	in.cond.L = &in.mu
	return in
}

// Acquire returns item's entry (made if new), counted as an add under
// way, with its op mutex held: the caller adds, then calls AfterAdd.
func (in *Interner[T, M]) Acquire(item T) *Entry[T, M] {
	in.mu.Lock()
	e := in.byItem[item]
	if e == nil {
		in.next++
		e = &Entry[T, M]{Item: item}
		binary.LittleEndian.PutUint64(e.Key[:], in.next)
		in.byItem[item] = e
		in.byID[in.next] = e
	}
	e.inflight++
	in.mu.Unlock()
	e.op.Lock()
	return e
}

// AfterAdd ends an add (ok: the kernel took it; then fn, if not nil, runs
// on the entry's value under the interner's lock); it releases op.
func (in *Interner[T, M]) AfterAdd(e *Entry[T, M], ok bool, fn func(m *M)) {
	in.mu.Lock()
	e.inflight--
	if ok {
		e.live = true
		if fn != nil {
			fn(&e.meta)
		}
	} else if !e.live && e.inflight == 0 {
		in.drop(e)
	}
	if e.inflight == 0 {
		in.cond.Broadcast()
	}
	in.mu.Unlock()
	e.op.Unlock()
}

// Find returns item's entry with its op mutex held (release it with
// Release), or nil if the kernel holds nothing of the item.
func (in *Interner[T, M]) Find(item T) *Entry[T, M] {
	in.mu.Lock()
	e := in.byItem[item]
	in.mu.Unlock()
	if e == nil {
		return nil
	}
	e.op.Lock()
	return e
}

// Release ends a Done, Forget or other call on e found by Find (gone: the
// kernel said it holds nothing of e's key any more; then fn, if not nil,
// runs on the entry's value first); it releases op.
func (in *Interner[T, M]) Release(e *Entry[T, M], gone bool, fn func(m *M)) {
	if gone || fn != nil {
		in.mu.Lock()
		if fn != nil {
			fn(&e.meta)
		}
		if gone {
			e.live = false
			if e.inflight == 0 {
				in.drop(e)
			}
		}
		in.mu.Unlock()
	}
	e.op.Unlock()
}

// Lookup returns the entry of a key the kernel handed out.
func (in *Interner[T, M]) Lookup(key []byte) (*Entry[T, M], bool) {
	if len(key) != 8 {
		return nil, false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	e, ok := in.byID[binary.LittleEndian.Uint64(key)]
	return e, ok
}

// HandedOut runs fn on the value of an entry a Get took, once the adds of
// it under way have ended (so that what they did is recorded first).
func (in *Interner[T, M]) HandedOut(e *Entry[T, M], fn func(m *M)) {
	in.mu.Lock()
	for e.inflight > 0 {
		in.cond.Wait()
	}
	fn(&e.meta)
	in.mu.Unlock()
}

func (in *Interner[T, M]) drop(e *Entry[T, M]) {
	if cur, ok := in.byItem[e.Item]; ok && cur == e {
		delete(in.byItem, e.Item)
		delete(in.byID, binary.LittleEndian.Uint64(e.Key[:]))
	}
}

// Size returns how many items are kept.
func (in *Interner[T, M]) Size() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.byItem)
}
