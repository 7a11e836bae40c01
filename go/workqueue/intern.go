package workqueue

// The items of a typed queue in the kernel: each item the kernel holds is
// a small key there, an 8-byte id this process gives it, so items of any
// comparable type (pointers, structs) go through the kernel unchanged.
// An item's id lives while the kernel may hold the key (queued,
// processing, dirty, waiting, or its failures counted by the limiter):
// Done and Forget ask the kernel what it still holds of the key, and an
// id the kernel let go of is dropped, with the package's reference to the
// item, so that the item can be garbage collected.
//
// Locking: each entry's op mutex is held across an add's system call and
// its bookkeeping, and across a Done's or Forget's and theirs, so that
// what the kernel said and what the entry records agree; in.mu (taken
// inside op) guards the maps and the entries' fields.

import (
	"encoding/binary"
	"sync"
)

type entry[T comparable] struct {
	op   sync.Mutex // an add, or a Done or Forget, with its bookkeeping
	item T
	key  [8]byte // the id, little-endian: what the kernel holds
	// adds under way (from acquire to afterAdd): the entry stays
	inflight int
	// the kernel may hold the key: an add succeeded, and no Done or
	// Forget has said it let go since
	live bool
	// metrics: counted as added and not yet handed out (metrics.go)
	counted bool
}

type interner[T comparable] struct {
	mu     sync.Mutex
	cond   sync.Cond // an entry's adds under way ended (metrics' Get)
	byItem map[T]*entry[T]
	byID   map[uint64]*entry[T]
	next   uint64
}

func newInterner[T comparable]() *interner[T] {
	in := &interner[T]{byItem: map[T]*entry[T]{}, byID: map[uint64]*entry[T]{}}
	in.cond.L = &in.mu
	return in
}

// acquire: item's entry (made if new), counted as an add under way, with
// its op mutex held: the caller adds, then calls afterAdd.
func (in *interner[T]) acquire(item T) *entry[T] {
	in.mu.Lock()
	e := in.byItem[item]
	if e == nil {
		in.next++
		e = &entry[T]{item: item}
		binary.LittleEndian.PutUint64(e.key[:], in.next)
		in.byItem[item] = e
		in.byID[in.next] = e
	}
	e.inflight++
	in.mu.Unlock()
	e.op.Lock()
	return e
}

// afterAdd: the add ended (ok: the kernel took it; count: call it to
// count the add in the metrics if it is not yet); releases op.
func (in *interner[T]) afterAdd(e *entry[T], ok bool, count func()) {
	in.mu.Lock()
	e.inflight--
	if ok {
		e.live = true
		if count != nil && !e.counted {
			e.counted = true
			count()
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

// find: item's entry with its op mutex held (release it with done), or
// nil if the kernel holds nothing of the item.
func (in *interner[T]) find(item T) *entry[T] {
	in.mu.Lock()
	e := in.byItem[item]
	in.mu.Unlock()
	if e == nil {
		return nil
	}
	e.op.Lock()
	return e
}

// done: the Done or Forget on e ended; gone: the kernel said it holds
// nothing of e's key any more. Releases op.
func (in *interner[T]) done(e *entry[T], gone bool) {
	if gone {
		in.mu.Lock()
		e.live = false
		if e.inflight == 0 {
			in.drop(e)
		}
		in.mu.Unlock()
	}
	e.op.Unlock()
}

// lookup: the entry of a key the kernel handed out.
func (in *interner[T]) lookup(key []byte) (*entry[T], bool) {
	if len(key) != 8 {
		return nil, false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	e, ok := in.byID[binary.LittleEndian.Uint64(key)]
	return e, ok
}

// handedOut: metrics of a Get of e's key: count waits for the adds of it
// under way (so that each is counted once), then counts it as added if
// nothing did (the kernel queued it by itself: a delay passed).
func (in *interner[T]) handedOut(e *entry[T], count func()) {
	in.mu.Lock()
	for e.inflight > 0 {
		in.cond.Wait()
	}
	if !e.counted {
		count()
	}
	e.counted = false
	in.mu.Unlock()
}

func (in *interner[T]) drop(e *entry[T]) {
	if cur, ok := in.byItem[e.item]; ok && cur == e {
		delete(in.byItem, e.item)
		delete(in.byID, binary.LittleEndian.Uint64(e.key[:]))
	}
}

// size: items kept (tests).
func (in *interner[T]) size() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.byItem)
}
