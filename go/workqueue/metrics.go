package workqueue

// Metrics, as client-go's: a queue with a name reports to a
// MetricsProvider (SetProvider's, or its config's) the calls client-go
// would make for what this process does with the queue: depth, adds,
// latency (queue duration), work duration, unfinished work, the longest
// running processor, retries.
//
// Where the kernel moves a key by itself the process sees it only later,
// and counts it so: a key that became queued when its AddAfter delay (or
// its rate limiter's) passed is counted as added when a Get hands it out
// (its latency is then 0); a key added while processing, queued again at
// its Done, was counted when that Add was made, as client-go counts it.
// Keys other processes add to a shared queue are not counted.

import (
	"sync"

	"wq.dev/go/internal/base"
)

type queueMetrics[T comparable] interface {
	add(item T)
	get(item T)
	done(item T)
	updateUnfinishedWork()
}

// GaugeMetric represents a single numerical value that can arbitrarily go
// up and down.
type GaugeMetric interface {
	Inc()
	Dec()
}

// SettableGaugeMetric represents a single numerical value that can
// arbitrarily go up and down. (Separate from GaugeMetric to preserve
// backwards compatibility.)
type SettableGaugeMetric interface {
	Set(float64)
}

// CounterMetric represents a single numerical value that only ever goes
// up.
type CounterMetric interface {
	Inc()
}

// SummaryMetric captures individual observations.
type SummaryMetric interface {
	Observe(float64)
}

// HistogramMetric counts individual observations.
type HistogramMetric interface {
	Observe(float64)
}

type noopMetric struct{}

func (noopMetric) Inc()            {}
func (noopMetric) Dec()            {}
func (noopMetric) Set(float64)     {}
func (noopMetric) Observe(float64) {}

// defaultQueueMetrics: client-go's, behind a lock of its own (the queue
// has none in Go). The item times are base.Times.
type defaultQueueMetrics[T comparable] struct {
	mu sync.Mutex

	depth GaugeMetric
	adds  CounterMetric
	times base.Times[T]
}

func (m *defaultQueueMetrics[T]) add(item T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.adds.Inc()
	m.depth.Inc()
	m.times.Added(item)
}

func (m *defaultQueueMetrics[T]) get(item T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.depth.Dec()
	m.times.Got(item)
}

func (m *defaultQueueMetrics[T]) done(item T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.times.Done(item)
}

func (m *defaultQueueMetrics[T]) updateUnfinishedWork() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.times.UpdateUnfinishedWork()
}

type noMetrics[T any] struct{}

func (noMetrics[T]) add(item T)            {}
func (noMetrics[T]) get(item T)            {}
func (noMetrics[T]) done(item T)           {}
func (noMetrics[T]) updateUnfinishedWork() {}

type retryMetrics interface {
	retry()
}

type defaultRetryMetrics struct {
	retries CounterMetric
}

func (m *defaultRetryMetrics) retry() {
	if m == nil {
		return
	}
	m.retries.Inc()
}

// MetricsProvider generates various metrics used by the queue.
type MetricsProvider interface {
	NewDepthMetric(name string) GaugeMetric
	NewAddsMetric(name string) CounterMetric
	NewLatencyMetric(name string) HistogramMetric
	NewWorkDurationMetric(name string) HistogramMetric
	NewUnfinishedWorkSecondsMetric(name string) SettableGaugeMetric
	NewLongestRunningProcessorSecondsMetric(name string) SettableGaugeMetric
	NewRetriesMetric(name string) CounterMetric
}

type noopMetricsProvider struct{}

func (noopMetricsProvider) NewDepthMetric(string) GaugeMetric            { return noopMetric{} }
func (noopMetricsProvider) NewAddsMetric(string) CounterMetric           { return noopMetric{} }
func (noopMetricsProvider) NewLatencyMetric(string) HistogramMetric      { return noopMetric{} }
func (noopMetricsProvider) NewWorkDurationMetric(string) HistogramMetric { return noopMetric{} }
func (noopMetricsProvider) NewRetriesMetric(string) CounterMetric        { return noopMetric{} }
func (noopMetricsProvider) NewUnfinishedWorkSecondsMetric(string) SettableGaugeMetric {
	return noopMetric{}
}
func (noopMetricsProvider) NewLongestRunningProcessorSecondsMetric(string) SettableGaugeMetric {
	return noopMetric{}
}

var (
	globalMetricsProviderMu      sync.Mutex
	globalMetricsProvider        MetricsProvider = noopMetricsProvider{}
	setGlobalMetricsProviderOnce sync.Once
)

func currentProvider(mp MetricsProvider) MetricsProvider {
	if mp != nil {
		return mp
	}
	globalMetricsProviderMu.Lock()
	defer globalMetricsProviderMu.Unlock()
	return globalMetricsProvider
}

func newQueueMetrics[T comparable](mp MetricsProvider, name string, clock PassiveClock) queueMetrics[T] {
	mp = currentProvider(mp)
	if len(name) == 0 || mp == (noopMetricsProvider{}) {
		return noMetrics[T]{}
	}
	return &defaultQueueMetrics[T]{
		depth: mp.NewDepthMetric(name),
		adds:  mp.NewAddsMetric(name),
		times: base.NewTimes[T](clock, mp.NewLatencyMetric(name), mp.NewWorkDurationMetric(name),
			mp.NewUnfinishedWorkSecondsMetric(name), mp.NewLongestRunningProcessorSecondsMetric(name)),
	}
}

func newRetryMetrics(name string, provider MetricsProvider) retryMetrics {
	var ret *defaultRetryMetrics
	if len(name) == 0 {
		return ret
	}
	return &defaultRetryMetrics{retries: currentProvider(provider).NewRetriesMetric(name)}
}

// SetProvider sets the metrics provider for all subsequently created work
// queues. Only the first call has an effect.
func SetProvider(metricsProvider MetricsProvider) {
	setGlobalMetricsProviderOnce.Do(func() {
		globalMetricsProviderMu.Lock()
		defer globalMetricsProviderMu.Unlock()
		globalMetricsProvider = metricsProvider
	})
}
