package base

// Tests that need no kernel: the item times, the refusals, a queue whose
// kernel queue cannot be made.

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"wq.dev/go/internal/kq"
)

type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time                  { return c.now }
func (c *fakeClock) Since(t time.Time) time.Duration { return c.now.Sub(t) }

type observed []float64

func (o *observed) Observe(v float64) { *o = append(*o, v) }
func (o *observed) Set(v float64)     { *o = append(*o, v) }

func TestTimes(t *testing.T) {
	c := &fakeClock{now: time.Unix(1000, 0)}
	var latency, work, unfinished, longest observed
	m := NewTimes[string](c, &latency, &work, &unfinished, &longest)
	m.Added("a")
	c.now = c.now.Add(time.Second)
	m.Added("a") // not handed out yet: the first add's time stays
	m.Added("b")
	c.now = c.now.Add(time.Second)
	m.Got("a") // 2 s after its first add
	m.Got("b") // 1 s
	c.now = c.now.Add(3 * time.Second)
	m.UpdateUnfinishedWork() // a and b processing for 3 s each
	m.Done("a")
	m.Done("a") // no longer processing: nothing
	m.UpdateUnfinishedWork()
	for _, c := range []struct {
		name      string
		got, want observed
	}{
		{"latency", latency, observed{2, 1}},
		{"work duration", work, observed{3}},
		{"unfinished work", unfinished, observed{6, 3}},
		{"longest running", longest, observed{3, 3}},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestRefusals(t *testing.T) {
	var r Refusals
	r.Note(syscall.ESHUTDOWN, "test", syscall.ESHUTDOWN)
	r.Note(syscall.EBADF, "test", syscall.EBADF)
	r.NoteError("test", nil)
	if n := r.Count(); n != 0 {
		t.Errorf("%d refusals counted after a shutdown's", n)
	}
	r.Note(syscall.EAGAIN, "test", syscall.EAGAIN)
	r.NoteError("test", kq.Error("add", syscall.EAGAIN))
	r.NoteError("test", kq.Error("add", syscall.ESHUTDOWN))
	if n := r.Count(); n != 2 {
		t.Errorf("%d refusals counted, want 2", n)
	}
}

// Without /dev/wq Init says why and starts no goroutine (the caller makes
// an in-process queue instead).
func TestNoKernelFails(t *testing.T) {
	if _, err := os.Stat(kq.DevPath); err == nil {
		t.Skip("/dev/wq is there: the guests' tests make kernel queues")
	}
	var b Queue[string, int]
	started := make(chan struct{}, 1)
	err := b.Init(Options{Pkg: "test", Name: "q", UnfinishedWork: func(*kq.QueueInfo) {}, NewTicker: func(time.Duration) Ticker {
		started <- struct{}{}
		return realTicker{time.NewTicker(time.Hour)}
	}})
	if err == nil || b.Err() != err {
		t.Fatalf("Init without /dev/wq: %v (Err %v)", err, b.Err())
	}
	select {
	case <-started:
		t.Error("the metrics goroutine started")
	case <-time.After(50 * time.Millisecond):
	}
	if !strings.Contains(err.Error(), kq.DevPath) {
		t.Errorf("the error does not name %s: %v", kq.DevPath, err)
	}
}

type realTicker struct{ t *time.Ticker }

func (r realTicker) C() <-chan time.Time { return r.t.C }
func (r realTicker) Stop()               { r.t.Stop() }
