package workqueue

// The limiter constructors: each returns client-go's own limiter (same
// type, same arithmetic, so used on its own it gives client-go's delays)
// and records it with its kernel form (wq.dev/go/internal/limiters), so
// that a queue given it hands it to the kernel, which applies it exactly.
// Any other TypedRateLimiter runs in Go: AddRateLimited asks its When and
// adds with that delay.

import (
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"

	"wq.dev/go/internal/limiters"
)

// DefaultControllerRateLimiter is DefaultTypedControllerRateLimiter over
// any item.
//
// Deprecated: Use DefaultTypedControllerRateLimiter instead.
func DefaultControllerRateLimiter() RateLimiter {
	return DefaultTypedControllerRateLimiter[any]()
}

// DefaultTypedControllerRateLimiter is client-go's default limiter of a
// controller's queue: per item exponential (5 ms to 1000 s) and an overall
// token bucket (10 qps, burst 100), the worse of the two. It runs in the
// kernel.
func DefaultTypedControllerRateLimiter[T comparable]() TypedRateLimiter[T] {
	return NewTypedMaxOfRateLimiter(
		NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second),
		// 10 qps, 100 bucket size. This is only for retry speed and its
		// only the overall factor (not per item)
		NewTypedBucketRateLimiter[T](10, 100),
	)
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
	l := workqueue.NewTypedItemExponentialFailureRateLimiter[T](baseDelay, maxDelay)
	limiters.Exponential(l, baseDelay, maxDelay)
	return l
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
	l := workqueue.NewTypedItemFastSlowRateLimiter[T](fastDelay, slowDelay, maxFastAttempts)
	limiters.FastSlow(l, fastDelay, slowDelay, maxFastAttempts)
	return l
}

// NewMaxOfRateLimiter is NewTypedMaxOfRateLimiter over any item.
//
// Deprecated: NewMaxOfRateLimiter is deprecated, use
// NewTypedMaxOfRateLimiter instead.
func NewMaxOfRateLimiter(limiters ...TypedRateLimiter[any]) RateLimiter {
	return NewTypedMaxOfRateLimiter(limiters...)
}

// NewTypedMaxOfRateLimiter makes the worst of limiters: the kernel's if
// every one of them is (and together they have at most 8 terms, no cap).
func NewTypedMaxOfRateLimiter[T comparable](rateLimiters ...TypedRateLimiter[T]) TypedRateLimiter[T] {
	l := workqueue.NewTypedMaxOfRateLimiter(rateLimiters...)
	limiters.MaxOf(l, rateLimiters)
	return l
}

// NewWithMaxWaitRateLimiter is NewTypedWithMaxWaitRateLimiter over any
// item.
//
// Deprecated: NewWithMaxWaitRateLimiter is deprecated, use
// NewTypedWithMaxWaitRateLimiter instead.
func NewWithMaxWaitRateLimiter(limiter RateLimiter, maxDelay time.Duration) RateLimiter {
	return NewTypedWithMaxWaitRateLimiter[any](limiter, maxDelay)
}

// NewTypedWithMaxWaitRateLimiter caps limiter's delays at maxDelay: the
// kernel's if limiter is.
func NewTypedWithMaxWaitRateLimiter[T comparable](limiter TypedRateLimiter[T], maxDelay time.Duration) TypedRateLimiter[T] {
	l := workqueue.NewTypedWithMaxWaitRateLimiter(limiter, maxDelay)
	limiters.MaxWait(l, limiter, maxDelay)
	return l
}

// NewBucketRateLimiter is NewTypedBucketRateLimiter over any item.
func NewBucketRateLimiter(qps float64, burst int) *BucketRateLimiter {
	return NewTypedBucketRateLimiter[any](qps, burst)
}

// NewTypedBucketRateLimiter, beyond client-go, makes client-go's token
// bucket of qps tokens a second and burst tokens at most (full at first),
// as &TypedBucketRateLimiter[T]{Limiter: rate.NewLimiter(rate.Limit(qps),
// burst)} does, but one that a queue hands to the kernel: a bucket that a
// struct literal makes runs in Go.
func NewTypedBucketRateLimiter[T comparable](qps float64, burst int) *TypedBucketRateLimiter[T] {
	b := &workqueue.TypedBucketRateLimiter[T]{Limiter: rate.NewLimiter(rate.Limit(qps), burst)}
	limiters.Bucket(b, qps, burst)
	return b
}
