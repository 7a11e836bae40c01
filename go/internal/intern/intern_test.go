package intern

import (
	"sync"
	"testing"
	"time"
)

type counted struct{ n int }

// An entry lives from its first add the kernel took until a Done or
// Forget says the kernel holds nothing of it; its id is what Lookup finds.
func TestEntryLifetime(t *testing.T) {
	in := New[string, counted]()
	e := in.Acquire("a")
	in.AfterAdd(e, false, nil) // refused: dropped
	if in.Size() != 0 {
		t.Fatalf("a refused first add kept the item")
	}
	e = in.Acquire("a")
	in.AfterAdd(e, true, func(m *counted) { m.n++ })
	if got, ok := in.Lookup(e.Key[:]); !ok || got != e || got.Item != "a" {
		t.Fatalf("Lookup of a's key: %v %v", got, ok)
	}
	if e2 := in.Acquire("a"); e2 != e {
		t.Fatal("a second add of a: another entry")
	} else {
		in.AfterAdd(e2, false, nil) // refused, but the kernel holds a
	}
	if in.Size() != 1 {
		t.Fatal("a refused add dropped an item the kernel holds")
	}
	f := in.Find("a")
	in.Release(f, false, nil)
	if in.Size() != 1 {
		t.Fatal("Release without gone dropped the item")
	}
	n := 0
	in.HandedOut(e, func(m *counted) { n = m.n })
	if n != 1 {
		t.Errorf("the value: %d, want 1", n)
	}
	f = in.Find("a")
	in.Release(f, true, nil)
	if in.Size() != 0 || in.Find("a") != nil {
		t.Fatal("gone: still kept")
	}
	if _, ok := in.Lookup(e.Key[:]); ok {
		t.Fatal("gone: its key still found")
	}
	if e3 := in.Acquire("a"); e3.Key == e.Key {
		t.Error("an item added again reused its old id")
	}
	if _, ok := in.Lookup([]byte("short")); ok {
		t.Error("a key of 5 bytes found")
	}
}

// An entry with an add under way is not dropped by a Done that says the
// kernel let go (the add will say otherwise), and HandedOut waits for it.
func TestAddUnderWayKeepsTheEntry(t *testing.T) {
	in := New[int, counted]()
	e := in.Acquire(1)
	in.AfterAdd(e, true, nil)
	adding := in.Acquire(1) // holds op: the Done below waits for it
	var wg sync.WaitGroup
	wg.Add(1)
	seen := make(chan int, 1)
	go func() {
		defer wg.Done()
		in.HandedOut(e, func(m *counted) { seen <- m.n })
	}()
	done := make(chan struct{})
	go func() {
		f := in.Find(1)
		in.Release(f, true, nil)
		close(done)
	}()
	select {
	case <-seen:
		t.Fatal("HandedOut ran while an add was under way")
	case <-done:
		t.Fatal("a Done ran while an add held the entry")
	case <-time.After(50 * time.Millisecond):
	}
	in.AfterAdd(adding, true, func(m *counted) { m.n = 7 })
	wg.Wait()
	if n := <-seen; n != 7 {
		t.Errorf("HandedOut saw %d, want the add's 7", n)
	}
	<-done
	if in.Size() != 0 {
		t.Error("the Done after the add did not drop the entry")
	}
}
