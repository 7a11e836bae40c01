// Package priorityqueue is controller-runtime's
// pkg/controller/priorityqueue (the default queue of its controllers
// since v0.23) over wq's kernel queues (/dev/wq): its types are
// controller-runtime's own (aliases), New has its signature, and the queue
// New returns is a PriorityQueue to controller-runtime, which then hands
// it priorities. It is a Go module of its own (wq.dev/go/priorityqueue),
// so that programs of client-go alone do not pull controller-runtime.
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
// Where the kernel cannot serve New (no /dev/wq, a module without
// priority queues), the queue is controller-runtime's own, logged once;
// wq.dev/go/workqueue's BackendOf tells which.
//
// A rate limiter made by wq.dev/go/workqueue's constructors (the default
// is one) is the kernel's limiter of the queue: AddRateLimited, Forget
// and NumRequeues are the kernel's. Any other limiter runs in Go, as
// controller-runtime runs it.
//
// # With controller-runtime
//
// NewQueue is controller.Options.NewQueue:
//
//	ctrl.NewControllerManagedBy(mgr).For(&corev1.Pod{}).
//		WithOptions(controller.Options{
//			NewQueue:    priorityqueue.NewQueue[reconcile.Request],
//			RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, 1000*time.Second),
//		}).Complete(r)
//
// (workqueue being wq.dev/go/workqueue: its limiter runs in the kernel;
// controller-runtime's default limiter is client-go's, which runs in Go).
// Its metrics are controller-runtime's workqueue_* series (name and
// controller labels, the depth by priority): the provider of client-go's
// SetProvider, which controller-runtime sets when it is linked (the first
// SetProvider counts: where another package set it first, the queue
// reports there, while controller-runtime's own reports to its provider).
//
// # Where it differs from controller-runtime
//
//   - An item added while it is processed is queued again at its Done, at
//     the tail of its level then; controller-runtime keeps it where that
//     add put it, ahead of items added after the add.
//   - ShutDown drops what is queued or waiting (the kernel's discarding
//     shutdown) and GetWithPriority returns shutdown from then on, as
//     controller-runtime's does; so does ShutDownWithDrain, which is
//     ShutDown, as controller-runtime's. Beyond it, ShutDownWithKernelDrain
//     is the kernel's drain: queued items are still handed out, and it
//     returns once nothing is queued or processing.
//   - Priorities are 32-bit in the kernel: larger ones are clamped.
//   - Delays run on the kernel's clock: there is no fake clock.
//   - Opts.Log gets the notice of a queue that is in process; the kernel
//     queue logs refused adds through klog, and has no periodic dump of
//     its items (controller-runtime's at V(5)).
//   - Metrics: an item that became ready when its delay passed is counted
//     as added when the process next sees it (a Get, or an add that finds
//     it queued), not when the delay passed; the gauges of each level
//     still come back to 0.
//   - Beyond controller-runtime: WithStarveAfter (for its issue 3496: a
//     ready item that waited longer goes first, whatever the priorities),
//     and on the *Queue[T] that New returns Refused, State (what the
//     kernel holds of an item), CancelAfter (drop a pending delay) and
//     ShutDownWithKernelDrain.
//   - An add the kernel queue has no room for waits in the process and
//     goes to the kernel as room frees (wq.dev/go/workqueue's Typed);
//     Len counts it.
package priorityqueue
