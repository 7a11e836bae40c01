package workqueue

// Metrics, as client-go's: a kernel queue with a name reports to its
// config's MetricsProvider, or else to the one of client-go's SetProvider
// (wq.dev/go/internal/provider reads it), the calls client-go's queue
// would make for what this process does with it: depth, adds, latency
// (queue duration), work duration, unfinished work, the longest running
// processor, retries. With controller-runtime (whose provider SetProvider
// holds) they are its workqueue_* series.
//
// Where the kernel moves a key by itself the process sees it only later,
// and counts it so: a key that became queued when its AddAfter delay (or
// its rate limiter's) passed is counted as added when a Get hands it out
// (its latency is then 0); a key added while processing, queued again at
// its Done, was counted when that Add was made, as client-go counts it.

import (
	"sync"

	"k8s.io/utils/clock"

	"wq.dev/go/internal/base"
	"wq.dev/go/internal/provider"
)

type queueMetrics[T comparable] interface {
	add(item T)
	get(item T)
	done(item T)
	updateUnfinishedWork()
}

// defaultQueueMetrics: client-go's, behind a lock of its own (the kernel
// queue has none in Go). The item times are base.Times.
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

// newQueueMetrics: as client-go's, for a queue named name with provider
// mp (nil: SetProvider's). No name, or the no-op provider: none.
func newQueueMetrics[T comparable](mp MetricsProvider, name string) queueMetrics[T] {
	mp = provider.Resolve(mp)
	if len(name) == 0 || provider.IsNoop(mp) {
		return noMetrics[T]{}
	}
	return &defaultQueueMetrics[T]{
		depth: mp.NewDepthMetric(name),
		adds:  mp.NewAddsMetric(name),
		times: base.NewTimes[T](clock.RealClock{}, mp.NewLatencyMetric(name), mp.NewWorkDurationMetric(name),
			mp.NewUnfinishedWorkSecondsMetric(name), mp.NewLongestRunningProcessorSecondsMetric(name)),
	}
}

// newRetryMetrics: as client-go's (a name is enough, the no-op provider
// gives no-op metrics).
func newRetryMetrics(name string, mp MetricsProvider) retryMetrics {
	var ret *defaultRetryMetrics
	if len(name) == 0 {
		return ret
	}
	return &defaultRetryMetrics{retries: provider.Resolve(mp).NewRetriesMetric(name)}
}
