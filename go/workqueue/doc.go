// Package workqueue is Kubernetes client-go's util/workqueue over wq's
// kernel queues (/dev/wq): client-go's own types (aliases), functions of
// client-go's signatures, constructors that return client-go's
// interfaces, and client-go's behaviour, so that a controller switches by
// changing one import path, with the queue living in the kernel.
//
// Every constructor (New, NewTyped, NewDelayingQueue, NewRateLimitingQueue
// and their variants) makes a private kernel queue: no name, reachable
// only through this process's handle, freed when the queue is no longer
// reachable. The dedup FIFO with its dirty and processing sets, the delays
// (AddAfter) and the limiters that this package's constructors made run
// in the kernel; each call is one system call, and a goroutine waiting in
// Get holds no OS thread (the handle is non-blocking, waited on through
// the runtime's poller). Items of any comparable type are kept in the
// process while the kernel holds their keys and let go when it does not,
// so they can be garbage collected.
//
// Where the kernel cannot serve a constructor (no /dev/wq, a module
// without a needed feature, the queue quota, a config with a Queue or a
// delaying queue of its own, a Clock that is not the real one), the queue
// is client-go's own in-process queue, logged once through klog with the
// reason; BackendOf tells a program which it has. No constructor returns
// a queue that does not work. Until /dev/wq answered once, each
// constructor looks again: a process started before the module was
// loaded makes kernel queues from then on.
//
// No add is dropped: one the kernel queue has no room for (its limit of
// keys, the owner's key-byte quota, memory) waits in the process, with
// the adds after it, in order, and goes to the kernel as room frees.
//
// Limiters: the constructors return client-go's own limiters and record
// each by a weak pointer, so that a queue given one hands it to the
// kernel, which applies it exactly (the queue's Forget and NumRequeues are
// then the kernel's). Any other TypedRateLimiter (client-go's constructors,
// a struct literal such as &TypedBucketRateLimiter{Limiter: ...}, a user's
// type) runs in Go: AddRateLimited asks its When and adds with the
// kernel's delay. NewTypedBucketRateLimiter makes a bucket the kernel
// applies.
//
// Metrics go to the config's MetricsProvider, or to the one client-go's
// SetProvider set (as controller-runtime and kube-controller-manager set
// it; read only on a client-go release it was verified on), with
// client-go's calls; keys the kernel queues by itself (a delay passed) are
// counted within UnfinishedWorkUpdatePeriod (500 ms), or when handed out.
//
// Beyond client-go: NewSharedRateLimitingQueue opens or creates a named
// queue that C programs (libwq), wqctl and kernel modules share (its keys
// are the strings' bytes), and NewTypedRestartSafeQueue a named queue that
// outlives the process: the keys it was processing come back, its delays
// and backoff survive a restart.
package workqueue
