package priorityqueue

// What this package adds around controller-runtime's own queue: options
// beyond its Opts, and its in-process queue where the kernel cannot serve
// New (logged once per reason).

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"weak"

	"k8s.io/klog/v2"

	wq "wq.dev/go/workqueue"
)

// extras: the options of this package's own Opt functions, which
// controller-runtime's Opts has no field for. An Opt records them by the
// *Opts it is applied to (weakly, until that Opts is collected: an Opt
// given to controller-runtime's own New leaves nothing behind), and New
// takes them back.
type extras struct {
	starveAfter time.Duration
}

var extraOpts sync.Map // weak.Pointer[Opts[T]] (as any) -> extras

func takeExtras[T comparable](o *Opts[T]) extras {
	x, ok := extraOpts.LoadAndDelete(weak.Make(o))
	if !ok {
		return extras{}
	}
	return x.(extras)
}

func putExtras[T comparable](o *Opts[T], x extras) {
	k := weak.Make(o)
	if _, had := extraOpts.Swap(k, x); !had {
		runtime.AddCleanup(o, func(k weak.Pointer[Opts[T]]) { extraOpts.Delete(k) }, k)
	}
}

// WithStarveAfter, beyond controller-runtime: a ready item that has
// waited longer than d is handed out before every item that has not,
// whatever the priorities (oldest first among them), so that no stream
// of higher items starves a lower one (controller-runtime issue 3496).
// 0: never. For this package's New only (controller-runtime's ignores it).
func WithStarveAfter[T comparable](d time.Duration) Opt[T] {
	return func(o *Opts[T]) {
		x := takeExtras(o)
		x.starveAfter = d
		putExtras(o, x)
	}
}

// localQueue is controller-runtime's own queue, with why it is not the
// kernel's.
type localQueue[T comparable] struct {
	PriorityQueue[T]
	why error
}

// Backend is wq.dev/go/workqueue's BackendInProcess, and why.
func (q *localQueue[T]) Backend() (wq.Backend, error) {
	return wq.BackendInProcess, q.why
}

var logged sync.Map // reason text -> logged

// inProcess logs, once per process and reason, that a queue is
// controller-runtime's in-process one (to opts.Log if it has a sink, else
// klog), and returns the reason as this package's error.
func inProcess[T comparable](opts *Opts[T], name string, why error) error {
	err := fmt.Errorf("priorityqueue: controller-runtime's in-process queue: %w", why)
	if _, seen := logged.LoadOrStore(why.Error(), true); !seen {
		l := opts.Log
		if l.GetSink() == nil {
			l = klog.Background()
		}
		l.Info("wq: a priority queue is controller-runtime's in-process queue, not the kernel's (logged once per reason)",
			"queue", name, "reason", why.Error())
	}
	return err
}
