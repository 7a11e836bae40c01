// Package priorityqueue is controller-runtime's
// pkg/controller/priorityqueue (the default queue of its controllers
// since v0.23) over wq's kernel queues (/dev/wq): the same names and
// signatures (PriorityQueue, AddOpts, New, Opts, Opt), with the queue
// living in the kernel.
//
// New makes a private kernel queue created with priorities: no name,
// reachable only through this process's handle, freed when the queue is
// no longer reachable. Higher priority first; equal priorities in the
// order the items became ready (added, raised, their delay passed,
// queued again at Done). Adding an item the queue holds keeps the higher
// of the two priorities, and a raise moves it to the tail of its new
// level; an item added while it is processed is queued again at its Done,
// with the highest priority given meanwhile. A plain add of a waiting
// item makes it ready at once (it is handed out once); an add with a
// delay of an item already ready only raises its priority; two delays
// keep the earlier ready time; RateLimited with After waits the shorter.
// Each call is one system call, and a goroutine waiting in Get holds no
// OS thread. Items of any comparable type are kept in the process only
// while the kernel holds them.
//
// A rate limiter made of package wq.dev/go/workqueue's limiters (the
// default is one) is the kernel's limiter of the queue: AddRateLimited,
// Forget and NumRequeues are the kernel's. Any other limiter runs in Go,
// as controller-runtime runs it: its When is asked, and the item added
// with that delay.
//
// # Where it differs from controller-runtime
//
//   - An item added while it is processed is queued again at its Done, at
//     the tail of its level then; controller-runtime keeps it where that
//     add put it, ahead of items added after the add.
//   - ShutDown drops what is queued or waiting (the kernel's discarding
//     shutdown) and GetWithPriority returns shutdown from then on, as
//     controller-runtime's does. ShutDownWithDrain is the kernel's drain:
//     queued items are still handed out, and it returns once nothing is
//     queued or processing (controller-runtime's only shuts down).
//   - Priorities are 32-bit in the kernel: larger ones are clamped.
//   - Delays run on the kernel's clock: there is no fake clock.
//   - Opts has no Log (controller-runtime's is a logr.Logger, not in the
//     standard library): the queue logs only refused adds (the module's
//     limit of items of a queue, the key-byte quota), once per kind, with
//     the standard log package; Refused counts them.
//   - Metrics: an item that became ready when its delay passed is counted
//     as added when the process next sees it (a Get, or an add that finds
//     it queued), not when the delay passed; the gauges of each level
//     still come back to 0.
//   - Opts.StarveAfter (beyond controller-runtime, for its issue 3496): a
//     ready item that waited longer than it goes first, whatever the
//     priorities.
//   - The *Queue[T] that New returns also has Err, Refused, State (what
//     the kernel holds of an item: queued, processing, dirty, waiting and
//     until when, its priority, its failures) and CancelAfter (drop an
//     item's pending delay).
//
// # With controller-runtime
//
// A controller takes another queue through controller.Options.NewQueue,
// whose types are client-go's; this queue's method set is client-go's
// TypedRateLimitingInterface, so it is one:
//
//	NewQueue: func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
//		return priorityqueue.New(name, func(o *priorityqueue.Opts[reconcile.Request]) {
//			o.RateLimiter = rl // client-go's: runs in Go
//		})
//	},
//
// where workqueue is client-go's package and priorityqueue this one. The
// limiter controller-runtime passes is client-go's, so it runs in Go;
// give one of wq.dev/go/workqueue's instead (its
// DefaultTypedControllerRateLimiter is client-go's default) to have the
// kernel apply it.
//
// controller-runtime hands priorities (its handlers' LowPriority for the
// initial list, the priority a requeue keeps) only to a queue of its own
// PriorityQueue type, whose AddOpts is its own struct. To have them, wrap
// this queue so that AddWithOpts takes controller-runtime's AddOpts; the
// two structs have the same fields, so one converts to the other:
//
//	type crQueue[T comparable] struct{ priorityqueue.PriorityQueue[T] }
//
//	func (q crQueue[T]) AddWithOpts(o crpq.AddOpts, items ...T) {
//		q.PriorityQueue.AddWithOpts(priorityqueue.AddOpts(o), items...)
//	}
//
// and return crQueue[reconcile.Request]{priorityqueue.New(name, ...)}
// from NewQueue (crpq being controller-runtime's priorityqueue package).
//
// The package uses the standard library only and builds with
// CGO_ENABLED=0; it needs Linux and a wq module with priority queues.
package priorityqueue
