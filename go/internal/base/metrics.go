package base

// The item times of client-go's queue metrics, which controller-runtime's
// priority queue reports the same way: when an item was added (for the
// latency, the queue duration), when its processing started (for the
// work duration, the unfinished work and the longest running processor).
// The depth, the adds and the retries differ between the two packages
// (by priority, or not) and stay in each.

import "time"

// Clock tells the time (workqueue.PassiveClock).
type Clock interface {
	Now() time.Time
	Since(time.Time) time.Duration
}

// Observer is a metric that observes values (workqueue.HistogramMetric).
type Observer interface {
	Observe(float64)
}

// Setter is a metric that is set (workqueue.SettableGaugeMetric).
type Setter interface {
	Set(float64)
}

// Times records the times of a queue's items and reports the metrics
// they make. It has no lock: its queue's metrics hold theirs across each
// call, as they hold it across their other calls.
type Times[T comparable] struct {
	clock                   Clock
	latency                 Observer
	workDuration            Observer
	unfinishedWorkSeconds   Setter
	longestRunningProcessor Setter
	addTimes                map[T]time.Time
	processingStartTimes    map[T]time.Time
}

// NewTimes makes the times of a queue whose metrics are these, on clock.
func NewTimes[T comparable](clock Clock, latency, workDuration Observer, unfinishedWorkSeconds, longestRunningProcessor Setter) Times[T] {
	return Times[T]{
		clock:                   clock,
		latency:                 latency,
		workDuration:            workDuration,
		unfinishedWorkSeconds:   unfinishedWorkSeconds,
		longestRunningProcessor: longestRunningProcessor,
		addTimes:                map[T]time.Time{},
		processingStartTimes:    map[T]time.Time{},
	}
}

// Added records item's add, unless an earlier one is not yet handed out.
func (m *Times[T]) Added(item T) {
	if _, exists := m.addTimes[item]; !exists {
		m.addTimes[item] = m.clock.Now()
	}
}

// Got records that item was handed out: its processing starts, and the
// time since its add is its latency.
func (m *Times[T]) Got(item T) {
	m.processingStartTimes[item] = m.clock.Now()
	if start, exists := m.addTimes[item]; exists {
		m.latency.Observe(m.clock.Since(start).Seconds())
		delete(m.addTimes, item)
	}
}

// Done records that item's processing ended: its work duration.
func (m *Times[T]) Done(item T) {
	if start, exists := m.processingStartTimes[item]; exists {
		m.workDuration.Observe(m.clock.Since(start).Seconds())
		delete(m.processingStartTimes, item)
	}
}

// UpdateUnfinishedWork sets the unfinished work (the seconds that the
// items being processed have been so) and the longest running processor.
func (m *Times[T]) UpdateUnfinishedWork() {
	var total, oldest float64
	for _, t := range m.processingStartTimes {
		age := m.clock.Since(t).Seconds()
		total += age
		if age > oldest {
			oldest = age
		}
	}
	m.unfinishedWorkSeconds.Set(total)
	m.longestRunningProcessor.Set(oldest)
}
