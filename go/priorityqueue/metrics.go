package priorityqueue

// Metrics, as controller-runtime's priority queue reports them (client-go's
// workqueue metrics, the depth by priority when the provider can, and the
// retries): a queue with a name reports to its MetricProvider the calls
// controller-runtime would make for what this process sees.
//
// The kernel moves items by itself (a delay passing), and the process
// sees that only later: an item that became ready when its delay passed
// is counted as added when it is next seen, by a Get (with a latency of
// 0) or an add that finds it queued. Each item records the priority it
// was counted at, so that the depth of each level comes back to 0.

import (
	"reflect"
	"sync"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"wq.dev/go/internal/base"
	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/provider"
)

// MetricsProviderWithPriority is a workqueue.MetricsProvider that also
// makes a depth metric by priority, as controller-runtime's own provider
// does (its interface is in an internal package: a provider whose
// NewDepthMetricWithPriority returns any type with Inc(int) and Dec(int),
// as controller-runtime's does, is one too); a queue whose provider is
// one reports its depth there instead of to NewDepthMetric.
type MetricsProviderWithPriority interface {
	workqueue.MetricsProvider

	NewDepthMetricWithPriority(name string) DepthMetricWithPriority
}

// DepthMetricWithPriority represents a depth metric with priority.
type DepthMetricWithPriority interface {
	Inc(priority int)
	Dec(priority int)
}

type queueMetrics[T comparable] interface {
	add(item T, priority int)
	get(item T, priority int)
	updateDepthWithPriorityMetric(oldPriority, newPriority int)
	done(item T)
	updateUnfinishedWork()
	retry()
}

func newQueueMetrics[T comparable](mp workqueue.MetricsProvider, name string) queueMetrics[T] {
	if len(name) == 0 {
		return noMetrics[T]{}
	}
	p := provider.Resolve(mp) // nil mp: SetProvider's
	if provider.IsNoop(p) {
		return noMetrics[T]{}
	}
	m := &defaultQueueMetrics[T]{
		adds:    p.NewAddsMetric(name),
		retries: p.NewRetriesMetric(name),
		times: base.NewTimes[T](clock.RealClock{}, p.NewLatencyMetric(name), p.NewWorkDurationMetric(name),
			p.NewUnfinishedWorkSecondsMetric(name), p.NewLongestRunningProcessorSecondsMetric(name)),
	}
	if m.depthWithPriority = depthWithPriority(p, name); m.depthWithPriority == nil {
		m.depth = p.NewDepthMetric(name)
	}
	return m
}

// depthWithPriority: p's depth metric by priority, if p makes one (as a
// MetricsProviderWithPriority, or by a method of that name and shape,
// controller-runtime's own provider's); nil if not.
func depthWithPriority(p workqueue.MetricsProvider, name string) DepthMetricWithPriority {
	if pp, ok := p.(MetricsProviderWithPriority); ok {
		return pp.NewDepthMetricWithPriority(name)
	}
	m := reflect.ValueOf(p).MethodByName("NewDepthMetricWithPriority")
	if !m.IsValid() || m.Type().NumIn() != 1 || m.Type().In(0).Kind() != reflect.String || m.Type().NumOut() != 1 {
		return nil
	}
	d, _ := m.Call([]reflect.Value{reflect.ValueOf(name)})[0].Interface().(DepthMetricWithPriority)
	return d
}

// defaultQueueMetrics: controller-runtime's, with a lock of its own for
// the item times (base.Times).
type defaultQueueMetrics[T comparable] struct {
	depth             workqueue.GaugeMetric
	depthWithPriority DepthMetricWithPriority
	adds              workqueue.CounterMetric
	retries           workqueue.CounterMetric

	mapLock sync.Mutex
	times   base.Times[T]
}

func (m *defaultQueueMetrics[T]) add(item T, priority int) {
	m.adds.Inc()
	m.moveDepth(priority, true)
	m.withTimes(func(t *base.Times[T]) { t.Added(item) })
}

func (m *defaultQueueMetrics[T]) get(item T, priority int) {
	m.moveDepth(priority, false)
	m.withTimes(func(t *base.Times[T]) { t.Got(item) })
}

// moveDepth counts an item into (up) or out of the depth at priority:
// the provider's depth by priority if it makes one, else the plain depth.
func (m *defaultQueueMetrics[T]) moveDepth(priority int, up bool) {
	switch {
	case m.depthWithPriority != nil && up:
		m.depthWithPriority.Inc(priority)
	case m.depthWithPriority != nil:
		m.depthWithPriority.Dec(priority)
	case up:
		m.depth.Inc()
	default:
		m.depth.Dec()
	}
}

// withTimes calls fn on the item times, under their lock.
func (m *defaultQueueMetrics[T]) withTimes(fn func(t *base.Times[T])) {
	m.mapLock.Lock()
	defer m.mapLock.Unlock()
	fn(&m.times)
}

func (m *defaultQueueMetrics[T]) updateDepthWithPriorityMetric(oldPriority, newPriority int) {
	if m.depthWithPriority != nil {
		m.depthWithPriority.Dec(oldPriority)
		m.depthWithPriority.Inc(newPriority)
	}
}

func (m *defaultQueueMetrics[T]) done(item T) {
	m.withTimes(func(t *base.Times[T]) { t.Done(item) })
}

func (m *defaultQueueMetrics[T]) updateUnfinishedWork() {
	m.withTimes((*base.Times[T]).UpdateUnfinishedWork)
}

func (m *defaultQueueMetrics[T]) retry() {
	m.retries.Inc()
}

type noMetrics[T any] struct{}

func (noMetrics[T]) add(T, int)                                   {}
func (noMetrics[T]) get(T, int)                                   {}
func (noMetrics[T]) updateDepthWithPriorityMetric(oldP, newP int) {}
func (noMetrics[T]) done(T)                                       {}
func (noMetrics[T]) updateUnfinishedWork()                        {}
func (noMetrics[T]) retry()                                       {}

// meta: what a queue with metrics records of an item (under the
// interner's lock).
type meta struct {
	counted  bool // added (depth counted at prio), not yet handed out
	prio     int
	waiting  bool // a waiting copy, as far as this process knows
	waitPrio int  // its priority
}

// calls: the metrics calls an event of an item asks for, in this order.
type calls struct {
	add      bool // add(item, addPrio)
	addPrio  int
	raise    bool // updateDepthWithPriorityMetric(from, to)
	from, to int
	get      bool // get(item, getPrio)
	getPrio  int
}

// added: an add at priority p did out (kq.Added*). A ready item is
// counted once, at the priority it is queued at (the higher of p and a
// waiting copy's, which the kernel folds in); a raise of a counted one
// moves its depth to the new level.
func (m *meta) added(p, out int) (c calls) {
	switch out {
	case kq.AddedWaiting, kq.AddedKept:
		if !m.waiting || p > m.waitPrio {
			m.waitPrio = p
		}
		m.waiting = true
		return c
	case kq.AddedQueued, kq.AddedCoalesced, kq.AddedDirty:
	default:
		return c
	}
	if m.waiting {
		p = max(p, m.waitPrio)
		m.waiting = false
	}
	switch {
	case !m.counted:
		m.counted, m.prio = true, p
		c.add, c.addPrio = true, p
	case p > m.prio:
		c.raise, c.from, c.to = true, m.prio, p
		m.prio = p
	}
	return c
}

// handedOut: a Get took the item at priority p; one the process had not
// seen become ready is counted as added now.
func (m *meta) handedOut(p int) (c calls) {
	if !m.counted {
		c.add, c.addPrio = true, p
		m.prio = p
	}
	c.get, c.getPrio = true, m.prio
	m.counted, m.waiting = false, false
	return c
}

// report makes the calls c says for item.
func report[T comparable](mt queueMetrics[T], item T, c calls) {
	if c.add {
		mt.add(item, c.addPrio)
	}
	if c.raise {
		mt.updateDepthWithPriorityMetric(c.from, c.to)
	}
	if c.get {
		mt.get(item, c.getPrio)
	}
}
