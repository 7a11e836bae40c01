package workqueue

// client-go's own types, as aliases: a value of either package is one of
// the other's. Only Typed (a struct whose methods are the queue) is this
// package's own. The functions here have nothing to do with the kernel
// and are client-go's.

import (
	"context"

	"k8s.io/client-go/util/workqueue"
)

// Interface is client-go's Interface: TypedInterface over any item.
//
// Deprecated: Interface is deprecated, use TypedInterface instead.
type Interface = workqueue.Interface

// TypedInterface is client-go's TypedInterface: a dedup FIFO whose items
// are processed by one worker at a time.
type TypedInterface[T comparable] = workqueue.TypedInterface[T]

// Queue is client-go's pluggable storage for a queue's items. A config
// that gives one gets client-go's in-process queue (see BackendOf).
type Queue[T comparable] = workqueue.Queue[T]

// QueueConfig is client-go's QueueConfig.
//
// Deprecated: use TypedQueueConfig instead.
type QueueConfig = workqueue.QueueConfig

// TypedQueueConfig is client-go's TypedQueueConfig: Name (the metrics'),
// MetricsProvider, Clock and Queue. A Clock other than the real one, or a
// Queue, makes the queue client-go's in-process one.
type TypedQueueConfig[T comparable] = workqueue.TypedQueueConfig[T]

// DelayingInterface is client-go's DelayingInterface.
//
// Deprecated: use TypedDelayingInterface instead.
type DelayingInterface = workqueue.DelayingInterface

// TypedDelayingInterface is client-go's TypedDelayingInterface: an
// Interface that can Add an item at a later time.
type TypedDelayingInterface[T comparable] = workqueue.TypedDelayingInterface[T]

// DelayingQueueConfig is client-go's DelayingQueueConfig.
//
// Deprecated: use TypedDelayingQueueConfig instead.
type DelayingQueueConfig = workqueue.DelayingQueueConfig

// TypedDelayingQueueConfig is client-go's TypedDelayingQueueConfig:
// Logger, Name, MetricsProvider, Clock and Queue.
type TypedDelayingQueueConfig[T comparable] = workqueue.TypedDelayingQueueConfig[T]

// RateLimitingInterface is client-go's RateLimitingInterface.
//
// Deprecated: Use TypedRateLimitingInterface instead.
type RateLimitingInterface = workqueue.RateLimitingInterface

// TypedRateLimitingInterface is client-go's TypedRateLimitingInterface: a
// delaying queue that also rate limits the items added to it.
type TypedRateLimitingInterface[T comparable] = workqueue.TypedRateLimitingInterface[T]

// RateLimitingQueueConfig is client-go's RateLimitingQueueConfig.
//
// Deprecated: Use TypedRateLimitingQueueConfig instead.
type RateLimitingQueueConfig = workqueue.RateLimitingQueueConfig

// TypedRateLimitingQueueConfig is client-go's
// TypedRateLimitingQueueConfig: Name, MetricsProvider, Clock and
// DelayingQueue.
type TypedRateLimitingQueueConfig[T comparable] = workqueue.TypedRateLimitingQueueConfig[T]

// RateLimiter is client-go's RateLimiter.
//
// Deprecated: RateLimiter is deprecated, use TypedRateLimiter instead.
type RateLimiter = workqueue.RateLimiter

// TypedRateLimiter is client-go's TypedRateLimiter: When, Forget,
// NumRequeues.
type TypedRateLimiter[T comparable] = workqueue.TypedRateLimiter[T]

// BucketRateLimiter is client-go's BucketRateLimiter.
//
// Deprecated: BucketRateLimiter is deprecated, use TypedBucketRateLimiter
// instead.
type BucketRateLimiter = workqueue.BucketRateLimiter

// TypedBucketRateLimiter is client-go's TypedBucketRateLimiter, an overall
// token bucket over an embedded *rate.Limiter of golang.org/x/time/rate.
// One that a struct literal makes runs in Go; the one in
// DefaultTypedControllerRateLimiter's limiter runs in the kernel.
type TypedBucketRateLimiter[T comparable] = workqueue.TypedBucketRateLimiter[T]

// ItemExponentialFailureRateLimiter is client-go's
// ItemExponentialFailureRateLimiter.
//
// Deprecated: ItemExponentialFailureRateLimiter is deprecated, use
// TypedItemExponentialFailureRateLimiter instead.
type ItemExponentialFailureRateLimiter = workqueue.ItemExponentialFailureRateLimiter

// TypedItemExponentialFailureRateLimiter is client-go's: baseDelay *
// 2^failures, at most maxDelay.
type TypedItemExponentialFailureRateLimiter[T comparable] = workqueue.TypedItemExponentialFailureRateLimiter[T]

// ItemFastSlowRateLimiter is client-go's ItemFastSlowRateLimiter.
//
// Deprecated: Use TypedItemFastSlowRateLimiter instead.
type ItemFastSlowRateLimiter = workqueue.ItemFastSlowRateLimiter

// TypedItemFastSlowRateLimiter is client-go's: a quick retry for a number
// of attempts, then a slow one.
type TypedItemFastSlowRateLimiter[T comparable] = workqueue.TypedItemFastSlowRateLimiter[T]

// MaxOfRateLimiter is client-go's MaxOfRateLimiter.
//
// Deprecated: Use TypedMaxOfRateLimiter instead.
type MaxOfRateLimiter = workqueue.MaxOfRateLimiter

// TypedMaxOfRateLimiter is client-go's: the worst of several limiters.
type TypedMaxOfRateLimiter[T comparable] = workqueue.TypedMaxOfRateLimiter[T]

// WithMaxWaitRateLimiter is client-go's WithMaxWaitRateLimiter.
//
// Deprecated: Use TypedWithMaxWaitRateLimiter instead.
type WithMaxWaitRateLimiter = workqueue.WithMaxWaitRateLimiter

// TypedWithMaxWaitRateLimiter is client-go's: a limiter's delay, capped.
type TypedWithMaxWaitRateLimiter[T comparable] = workqueue.TypedWithMaxWaitRateLimiter[T]

// GaugeMetric is client-go's GaugeMetric.
type GaugeMetric = workqueue.GaugeMetric

// SettableGaugeMetric is client-go's SettableGaugeMetric.
type SettableGaugeMetric = workqueue.SettableGaugeMetric

// CounterMetric is client-go's CounterMetric.
type CounterMetric = workqueue.CounterMetric

// SummaryMetric is client-go's SummaryMetric.
type SummaryMetric = workqueue.SummaryMetric

// HistogramMetric is client-go's HistogramMetric.
type HistogramMetric = workqueue.HistogramMetric

// MetricsProvider is client-go's MetricsProvider: what a named queue
// reports to (its config's, or the one SetProvider set).
type MetricsProvider = workqueue.MetricsProvider

// DoWorkPieceFunc is client-go's DoWorkPieceFunc.
type DoWorkPieceFunc = workqueue.DoWorkPieceFunc

// Options is client-go's Options of ParallelizeUntil.
type Options = workqueue.Options

// DefaultQueue is client-go's slice based FIFO Queue.
func DefaultQueue[T comparable]() Queue[T] {
	return workqueue.DefaultQueue[T]()
}

// SetProvider is client-go's SetProvider: it sets the metrics provider
// of every queue made after it, this package's and client-go's. Only the
// first call has an effect.
func SetProvider(metricsProvider MetricsProvider) {
	workqueue.SetProvider(metricsProvider)
}

// ParallelizeUntil is client-go's ParallelizeUntil: it runs doWorkPiece
// for each of pieces on workers goroutines, until done or ctx is
// cancelled.
func ParallelizeUntil(ctx context.Context, workers, pieces int, doWorkPiece DoWorkPieceFunc, opts ...Options) {
	workqueue.ParallelizeUntil(ctx, workers, pieces, doWorkPiece, opts...)
}

// WithChunkSize is client-go's WithChunkSize (a variable because its
// result's type, func(*options), names a type client-go does not export).
var WithChunkSize = workqueue.WithChunkSize
