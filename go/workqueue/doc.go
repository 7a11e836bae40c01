// Package workqueue is Kubernetes client-go's util/workqueue over wq's
// kernel queues (/dev/wq): the same names, signatures and behaviour, so
// that a controller switches by changing one import path, with the queue
// living in the kernel.
//
// Every constructor (New, NewTyped, NewDelayingQueue, NewRateLimitingQueue
// and their variants) makes a private kernel queue: no name, reachable
// only through this process's handle, freed when the queue is no longer
// reachable. The dedup FIFO with its dirty and processing sets, the
// delays (AddAfter) and the rate limiters of this package run in the
// kernel; each call is one system call, and a goroutine waiting in Get
// holds no OS thread (the handle is non-blocking, waited on through the
// runtime's poller). Items of any comparable type are kept in the process
// while the kernel holds their keys and let go when it does not, so they
// can be garbage collected.
//
// Where it differs from client-go:
//   - ShutDownWithDrain is the kernel's drain: it waits until nothing is
//     queued or processing (client-go waits for the items being processed
//     only), and ShutDown cuts it short.
//   - A config's Queue gets Touch when an Add coalesces with an item
//     already queued, and nothing else: the order is the kernel's.
//   - TypedBucketRateLimiter is made by NewTypedBucketRateLimiter(qps,
//     burst); client-go's embeds golang.org/x/time/rate's Limiter, which
//     is not in the standard library.
//   - The configs' Clock is this package's WithTicker. A clock other than
//     RealClock runs the delays (and the limiter) in Go, on that clock.
//     TypedDelayingQueueConfig has no Logger (klog is not in the standard
//     library; the package logs nothing but refused adds of shared queues).
//   - A limiter of this package given to a queue is the kernel's limiter
//     of that queue: the queue's Forget and NumRequeues are the kernel's,
//     and the limiter object's own counts are not used.
//   - Metrics: see MetricsProvider; keys the kernel queues by itself are
//     counted when they are handed out.
//
// Beyond client-go, NewSharedRateLimitingQueue opens or creates a named
// queue that C programs (libwq), wqctl and kernel modules share: its keys
// are the strings' bytes.
//
// The package uses the standard library only and builds with
// CGO_ENABLED=0; it needs Linux and the wq module.
package workqueue
