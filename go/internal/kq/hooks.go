package kq

// Hooks: package workqueue holds the limiter types and the global metrics
// provider; it lends them to the module's other packages through these,
// set in its init (a package that imports workqueue sees them set).

// LimiterOf returns the kernel form of l if l is a limiter made of
// package workqueue's (any TypedRateLimiter[T]), or false if it must run
// in Go. nil is no limiter.
var LimiterOf = func(l any) (*Limiter, bool) { return nil, false }

// Provider returns the metrics provider a queue uses: mp (a
// workqueue.MetricsProvider) if not nil, else the one of
// workqueue.SetProvider; nil if that is the no-op one.
var Provider = func(mp any) any { return mp }
