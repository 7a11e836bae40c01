package workqueue

// Rate limiters, as client-go's default_rate_limiters.go: the same types,
// constructors and arithmetic, so that used on their own they give
// client-go's delays. Given to a queue of this package (with no custom
// delaying queue), a limiter built from these is handed to the kernel as
// the queue's limiter (limiter_spec.go), which applies it exactly; the
// limiter object's own counts are then not used by the queue. Any other
// TypedRateLimiter runs in Go: AddRateLimited asks its When and adds with
// that delay.

import (
	"math"
	"sync"
	"time"
)

// RateLimiter is TypedRateLimiter over any item.
//
// Deprecated: RateLimiter is deprecated, use TypedRateLimiter instead.
type RateLimiter TypedRateLimiter[any]

// TypedRateLimiter decides how long an item waits before it is retried.
type TypedRateLimiter[T comparable] interface {
	// When gets an item and gets to decide how long that item should wait
	When(item T) time.Duration
	// Forget indicates that an item is finished being retried. Doesn't
	// matter whether it's for failing or for success, we'll stop tracking
	// it
	Forget(item T)
	// NumRequeues returns back how many failures the item has had
	NumRequeues(item T) int
}

// DefaultControllerRateLimiter is a no-arg constructor for a default rate
// limiter for a workqueue: per item exponential (5 ms to 1000 s) and an
// overall token bucket (10 qps, burst 100), the worse of the two.
//
// Deprecated: Use DefaultTypedControllerRateLimiter instead.
func DefaultControllerRateLimiter() RateLimiter {
	return DefaultTypedControllerRateLimiter[any]()
}

// DefaultTypedControllerRateLimiter is a no-arg constructor for a default
// rate limiter for a workqueue. It has both overall and per-item rate
// limiting. The overall is a token bucket and the per-item is exponential.
func DefaultTypedControllerRateLimiter[T comparable]() TypedRateLimiter[T] {
	return NewTypedMaxOfRateLimiter(
		NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second),
		// 10 qps, 100 bucket size. This is only for retry speed and its
		// only the overall factor (not per item)
		NewTypedBucketRateLimiter[T](10, 100),
	)
}

// BucketRateLimiter is TypedBucketRateLimiter over any item.
//
// Deprecated: BucketRateLimiter is deprecated, use TypedBucketRateLimiter
// instead.
type BucketRateLimiter = TypedBucketRateLimiter[any]

// TypedBucketRateLimiter is an overall token bucket: qps tokens a second,
// at most burst kept; each When takes one and returns how long until it
// is there. client-go's embeds golang.org/x/time/rate's Limiter (not in
// the standard library); this one is made by NewTypedBucketRateLimiter
// (qps, burst) and follows the same arithmetic.
type TypedBucketRateLimiter[T comparable] struct {
	mu     sync.Mutex
	qps    float64
	burst  int
	tokens float64
	last   time.Time
}

// NewBucketRateLimiter is NewTypedBucketRateLimiter over any item.
func NewBucketRateLimiter(qps float64, burst int) RateLimiter {
	return NewTypedBucketRateLimiter[any](qps, burst)
}

// NewTypedBucketRateLimiter makes a token bucket of qps tokens a second
// and burst tokens at most, full at first.
func NewTypedBucketRateLimiter[T comparable](qps float64, burst int) *TypedBucketRateLimiter[T] {
	return &TypedBucketRateLimiter[T]{qps: qps, burst: burst, tokens: float64(burst)}
}

// infDuration: the delay of a token that never comes (x/time/rate's
// InfDuration).
const infDuration = time.Duration(math.MaxInt64)

// When takes a token: the delay until it is there, as
// x/time/rate.Limiter.Reserve().Delay() (an infinite rate: 0; a burst of
// 0, or a wait too long to say: the longest Duration).
func (r *TypedBucketRateLimiter[T]) When(item T) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if math.IsInf(r.qps, 1) {
		return 0
	}
	if r.burst < 1 {
		return infDuration
	}
	now := time.Now()
	if !r.last.IsZero() && r.qps > 0 {
		r.tokens += now.Sub(r.last).Seconds() * r.qps
		if r.tokens > float64(r.burst) {
			r.tokens = float64(r.burst)
		}
	}
	r.last = now
	r.tokens--
	if r.tokens >= 0 {
		return 0
	}
	if r.qps <= 0 {
		return infDuration
	}
	d := -r.tokens / r.qps * float64(time.Second)
	if d > float64(math.MaxInt64) {
		return infDuration
	}
	return time.Duration(d)
}

// NumRequeues is 0: the bucket counts no item.
func (r *TypedBucketRateLimiter[T]) NumRequeues(item T) int {
	return 0
}

// Forget does nothing: the bucket counts no item.
func (r *TypedBucketRateLimiter[T]) Forget(item T) {
}

// ItemExponentialFailureRateLimiter is
// TypedItemExponentialFailureRateLimiter over any item.
//
// Deprecated: ItemExponentialFailureRateLimiter is deprecated, use
// TypedItemExponentialFailureRateLimiter instead.
type ItemExponentialFailureRateLimiter = TypedItemExponentialFailureRateLimiter[any]

// TypedItemExponentialFailureRateLimiter does a simple
// baseDelay*2^<num-failures> limit; dealing with max failures and
// expiration are up to the caller.
type TypedItemExponentialFailureRateLimiter[T comparable] struct {
	failuresLock sync.Mutex
	failures     map[T]int

	baseDelay time.Duration
	maxDelay  time.Duration
}

// NewItemExponentialFailureRateLimiter is
// NewTypedItemExponentialFailureRateLimiter over any item.
//
// Deprecated: NewItemExponentialFailureRateLimiter is deprecated, use
// NewTypedItemExponentialFailureRateLimiter instead.
func NewItemExponentialFailureRateLimiter(baseDelay time.Duration, maxDelay time.Duration) RateLimiter {
	return NewTypedItemExponentialFailureRateLimiter[any](baseDelay, maxDelay)
}

// NewTypedItemExponentialFailureRateLimiter waits baseDelay*2^failures,
// at most maxDelay.
func NewTypedItemExponentialFailureRateLimiter[T comparable](baseDelay time.Duration, maxDelay time.Duration) TypedRateLimiter[T] {
	return &TypedItemExponentialFailureRateLimiter[T]{
		failures:  map[T]int{},
		baseDelay: baseDelay,
		maxDelay:  maxDelay,
	}
}

// DefaultItemBasedRateLimiter is DefaultTypedItemBasedRateLimiter over any
// item.
//
// Deprecated: DefaultItemBasedRateLimiter is deprecated, use
// DefaultTypedItemBasedRateLimiter instead.
func DefaultItemBasedRateLimiter() RateLimiter {
	return DefaultTypedItemBasedRateLimiter[any]()
}

// DefaultTypedItemBasedRateLimiter is exponential from 1 ms to 1000 s.
func DefaultTypedItemBasedRateLimiter[T comparable]() TypedRateLimiter[T] {
	return NewTypedItemExponentialFailureRateLimiter[T](time.Millisecond, 1000*time.Second)
}

// When counts a failure of item and returns baseDelay*2^(failures before
// it), at most maxDelay.
func (r *TypedItemExponentialFailureRateLimiter[T]) When(item T) time.Duration {
	r.failuresLock.Lock()
	defer r.failuresLock.Unlock()

	exp := r.failures[item]
	r.failures[item] = r.failures[item] + 1

	// The backoff is capped such that 'calculated' value never overflows.
	backoff := float64(r.baseDelay.Nanoseconds()) * math.Pow(2, float64(exp))
	if backoff > math.MaxInt64 {
		return r.maxDelay
	}
	calculated := time.Duration(backoff)
	if calculated > r.maxDelay {
		return r.maxDelay
	}
	return calculated
}

// NumRequeues returns item's failures.
func (r *TypedItemExponentialFailureRateLimiter[T]) NumRequeues(item T) int {
	r.failuresLock.Lock()
	defer r.failuresLock.Unlock()
	return r.failures[item]
}

// Forget forgets item's failures.
func (r *TypedItemExponentialFailureRateLimiter[T]) Forget(item T) {
	r.failuresLock.Lock()
	defer r.failuresLock.Unlock()
	delete(r.failures, item)
}

// ItemFastSlowRateLimiter does a quick retry for a certain number of
// attempts, then a slow retry after that.
//
// Deprecated: Use TypedItemFastSlowRateLimiter instead.
type ItemFastSlowRateLimiter = TypedItemFastSlowRateLimiter[any]

// TypedItemFastSlowRateLimiter does a quick retry for a certain number of
// attempts, then a slow retry after that.
type TypedItemFastSlowRateLimiter[T comparable] struct {
	failuresLock sync.Mutex
	failures     map[T]int

	maxFastAttempts int
	fastDelay       time.Duration
	slowDelay       time.Duration
}

// NewItemFastSlowRateLimiter is NewTypedItemFastSlowRateLimiter over any
// item.
//
// Deprecated: NewItemFastSlowRateLimiter is deprecated, use
// NewTypedItemFastSlowRateLimiter instead.
func NewItemFastSlowRateLimiter(fastDelay, slowDelay time.Duration, maxFastAttempts int) RateLimiter {
	return NewTypedItemFastSlowRateLimiter[any](fastDelay, slowDelay, maxFastAttempts)
}

// NewTypedItemFastSlowRateLimiter waits fastDelay for the first
// maxFastAttempts failures of an item, slowDelay after.
func NewTypedItemFastSlowRateLimiter[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int) TypedRateLimiter[T] {
	return &TypedItemFastSlowRateLimiter[T]{
		failures:        map[T]int{},
		fastDelay:       fastDelay,
		slowDelay:       slowDelay,
		maxFastAttempts: maxFastAttempts,
	}
}

// When counts a failure of item: fastDelay up to maxFastAttempts of them,
// then slowDelay.
func (r *TypedItemFastSlowRateLimiter[T]) When(item T) time.Duration {
	r.failuresLock.Lock()
	defer r.failuresLock.Unlock()

	r.failures[item] = r.failures[item] + 1
	if r.failures[item] <= r.maxFastAttempts {
		return r.fastDelay
	}
	return r.slowDelay
}

// NumRequeues returns item's failures.
func (r *TypedItemFastSlowRateLimiter[T]) NumRequeues(item T) int {
	r.failuresLock.Lock()
	defer r.failuresLock.Unlock()
	return r.failures[item]
}

// Forget forgets item's failures.
func (r *TypedItemFastSlowRateLimiter[T]) Forget(item T) {
	r.failuresLock.Lock()
	defer r.failuresLock.Unlock()
	delete(r.failures, item)
}

// MaxOfRateLimiter calls every RateLimiter and returns the worst case
// response.
//
// Deprecated: Use TypedMaxOfRateLimiter instead.
type MaxOfRateLimiter = TypedMaxOfRateLimiter[any]

// TypedMaxOfRateLimiter calls every RateLimiter and returns the worst case
// response. When used with a token bucket limiter, the burst could be
// apparently exceeded in cases where particular items were separately
// delayed a longer time.
type TypedMaxOfRateLimiter[T comparable] struct {
	limiters []TypedRateLimiter[T]
}

// When asks every limiter and returns the longest delay.
func (r *TypedMaxOfRateLimiter[T]) When(item T) time.Duration {
	ret := time.Duration(0)
	for _, limiter := range r.limiters {
		curr := limiter.When(item)
		if curr > ret {
			ret = curr
		}
	}
	return ret
}

// NewMaxOfRateLimiter is NewTypedMaxOfRateLimiter over any item.
//
// Deprecated: NewMaxOfRateLimiter is deprecated, use
// NewTypedMaxOfRateLimiter instead.
func NewMaxOfRateLimiter(limiters ...TypedRateLimiter[any]) RateLimiter {
	return NewTypedMaxOfRateLimiter(limiters...)
}

// NewTypedMaxOfRateLimiter makes the worst of limiters.
func NewTypedMaxOfRateLimiter[T comparable](limiters ...TypedRateLimiter[T]) TypedRateLimiter[T] {
	return &TypedMaxOfRateLimiter[T]{limiters: limiters}
}

// NumRequeues returns the most failures any limiter counts.
func (r *TypedMaxOfRateLimiter[T]) NumRequeues(item T) int {
	ret := 0
	for _, limiter := range r.limiters {
		curr := limiter.NumRequeues(item)
		if curr > ret {
			ret = curr
		}
	}
	return ret
}

// Forget makes every limiter forget item.
func (r *TypedMaxOfRateLimiter[T]) Forget(item T) {
	for _, limiter := range r.limiters {
		limiter.Forget(item)
	}
}

// WithMaxWaitRateLimiter have maxDelay which avoids waiting too long.
//
// Deprecated: Use TypedWithMaxWaitRateLimiter instead.
type WithMaxWaitRateLimiter = TypedWithMaxWaitRateLimiter[any]

// TypedWithMaxWaitRateLimiter have maxDelay which avoids waiting too long.
type TypedWithMaxWaitRateLimiter[T comparable] struct {
	limiter  TypedRateLimiter[T]
	maxDelay time.Duration
}

// NewWithMaxWaitRateLimiter is NewTypedWithMaxWaitRateLimiter over any
// item.
//
// Deprecated: NewWithMaxWaitRateLimiter is deprecated, use
// NewTypedWithMaxWaitRateLimiter instead.
func NewWithMaxWaitRateLimiter(limiter RateLimiter, maxDelay time.Duration) RateLimiter {
	return NewTypedWithMaxWaitRateLimiter[any](limiter, maxDelay)
}

// NewTypedWithMaxWaitRateLimiter caps limiter's delays at maxDelay.
func NewTypedWithMaxWaitRateLimiter[T comparable](limiter TypedRateLimiter[T], maxDelay time.Duration) TypedRateLimiter[T] {
	return &TypedWithMaxWaitRateLimiter[T]{limiter: limiter, maxDelay: maxDelay}
}

// When returns the limiter's delay, at most maxDelay.
func (w TypedWithMaxWaitRateLimiter[T]) When(item T) time.Duration {
	delay := w.limiter.When(item)
	if delay > w.maxDelay {
		return w.maxDelay
	}
	return delay
}

// Forget makes the limiter forget item.
func (w TypedWithMaxWaitRateLimiter[T]) Forget(item T) {
	w.limiter.Forget(item)
}

// NumRequeues returns the limiter's count.
func (w TypedWithMaxWaitRateLimiter[T]) NumRequeues(item T) int {
	return w.limiter.NumRequeues(item)
}
