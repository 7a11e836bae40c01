package workqueue

// Metrics, as client-go's: a kernel queue with a name reports to its
// config's MetricsProvider, or else to the one of client-go's SetProvider
// (wq.dev/go/internal/provider reads it), the calls client-go's queue
// would make for what this process does with it: depth, adds, latency
// (queue duration), work duration, unfinished work, the longest running
// processor, retries. With controller-runtime (whose provider SetProvider
// holds) they are its workqueue_* series.
//
// Where the kernel makes a key pending by itself (its AddAfter or
// rate-limit delay passed, while it was queued or being processed) the
// process sees it only later: every UnfinishedWorkUpdatePeriod the
// metrics goroutine compares the kernel's count of pending keys (queued,
// and processing ones queued again at their Done) with the depth, and
// counts the keys it lacks as added then; a key handed out that was not
// counted is counted at its Get (its latency is then 0). The depth is so
// never negative and comes back to the kernel's count.

import (
	"sync"

	"k8s.io/utils/clock"

	"wq.dev/go/internal/base"
	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/provider"
)

type queueMetrics[T comparable] interface {
	add(item T) // the kernel made item pending (queued, or dirty)
	get(item T)
	done(item T)
	// update: the unfinished work, and the kernel's count of pending keys
	// (negative: it could not say), with no add under way
	update(pending int)
}

// defaultQueueMetrics: client-go's, behind a lock of its own (the kernel
// queue has none in Go). The item times are base.Times.
type defaultQueueMetrics[T comparable] struct {
	mu sync.Mutex

	depth   GaugeMetric
	adds    CounterMetric
	pending int // counted as added, not yet handed out: the depth's value
	times   base.Times[T]
}

func (m *defaultQueueMetrics[T]) add(item T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.adds.Inc()
	m.depth.Inc()
	m.pending++
	m.times.Added(item)
}

// get: a key handed out takes one of the keys counted as pending, or,
// if none is, it is counted as added now.
func (m *defaultQueueMetrics[T]) get(item T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending > 0 {
		m.pending--
	} else { // client-go's calls: its add, then its get
		m.adds.Inc()
		m.depth.Inc()
	}
	m.depth.Dec()
	m.times.Added(item) // nothing if it was counted: latency 0 if not
	m.times.Got(item)
}

func (m *defaultQueueMetrics[T]) done(item T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.times.Done(item)
}

func (m *defaultQueueMetrics[T]) update(pending int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for ; m.pending < pending; m.pending++ {
		m.adds.Inc()
		m.depth.Inc()
	}
	m.times.UpdateUnfinishedWork()
}

// pendingOf: the kernel's pending keys (queued, and dirty: queued again
// at their Done), or -1.
func pendingOf(qi *kq.QueueInfo) int {
	if qi == nil {
		return -1
	}
	return int(qi.Queued) + int(qi.Dirty)
}

type noMetrics[T any] struct{}

func (noMetrics[T]) add(item T)  {}
func (noMetrics[T]) get(item T)  {}
func (noMetrics[T]) done(item T) {}
func (noMetrics[T]) update(int)  {}

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
	p := provider.Resolve(mp)
	if len(name) == 0 || p == nil { // nil: the global one cannot be read
		return ret
	}
	return &defaultRetryMetrics{retries: p.NewRetriesMetric(name)}
}
