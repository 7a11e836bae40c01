package priorityqueue

// A metrics provider with priority that records what it is told
// (controller-runtime's fakeMetricsProvider, for one queue), and the host
// tests of what each event of an item reports.

import (
	"maps"
	"reflect"
	"sync"
	"testing"

	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/provider"
	"wq.dev/go/workqueue"
)

type fakeMetrics struct {
	mu            sync.Mutex
	depth         map[int]int
	plainDepth    int
	adds, retries int
	latency, work int
	negative      []int // levels whose depth went below 0
}

var _ MetricsProviderWithPriority = &fakeMetrics{}

func newFakeMetrics() *fakeMetrics { return &fakeMetrics{depth: map[int]int{}} }

type fakeDepth struct{ f *fakeMetrics }

func (d fakeDepth) Inc(p int) { d.f.do(func() { d.f.depth[p]++ }) }
func (d fakeDepth) Dec(p int) {
	d.f.do(func() {
		if d.f.depth[p]--; d.f.depth[p] < 0 {
			d.f.negative = append(d.f.negative, p)
		}
	})
}

type fakeCounter struct {
	f *fakeMetrics
	n *int
}

func (c fakeCounter) Inc()            { c.f.do(func() { *c.n++ }) }
func (c fakeCounter) Dec()            { c.f.do(func() { *c.n-- }) }
func (c fakeCounter) Observe(float64) { c.Inc() }
func (c fakeCounter) Set(float64)     {}

func (f *fakeMetrics) do(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

func (f *fakeMetrics) NewDepthMetricWithPriority(string) DepthMetricWithPriority {
	return fakeDepth{f}
}
func (f *fakeMetrics) NewDepthMetric(string) workqueue.GaugeMetric {
	return fakeCounter{f, &f.plainDepth}
}
func (f *fakeMetrics) NewAddsMetric(string) workqueue.CounterMetric { return fakeCounter{f, &f.adds} }
func (f *fakeMetrics) NewLatencyMetric(string) workqueue.HistogramMetric {
	return fakeCounter{f, &f.latency}
}
func (f *fakeMetrics) NewWorkDurationMetric(string) workqueue.HistogramMetric {
	return fakeCounter{f, &f.work}
}
func (f *fakeMetrics) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return fakeCounter{f, new(int)}
}
func (f *fakeMetrics) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return fakeCounter{f, new(int)}
}
func (f *fakeMetrics) NewRetriesMetric(string) workqueue.CounterMetric {
	return fakeCounter{f, &f.retries}
}

// snapshot: the depth by level, adds and retries.
func (f *fakeMetrics) snapshot() (map[int]int, int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.depth), f.adds, f.retries
}

// expectNoNegative: no level's depth has gone below 0 so far.
func (f *fakeMetrics) expectNoNegative(t testing.TB) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.negative) > 0 {
		t.Errorf("negative depth at the levels %v", f.negative)
	}
}

// plainProvider hides the priority depth: the queue uses NewDepthMetric.
type plainProvider struct{ workqueue.MetricsProvider }

// The events of one item, each with the calls it should make.
func TestMetaReportsEachEventOnce(t *testing.T) {
	type ev struct {
		handout bool
		p, out  int
		want    calls
	}
	cases := []struct {
		name string
		evs  []ev
	}{
		{"added then handed out", []ev{
			{p: 3, out: kq.AddedQueued, want: calls{add: true, addPrio: 3}},
			{p: 1, out: kq.AddedCoalesced},
			{handout: true, p: 3, want: calls{get: true, getPrio: 3}},
		}},
		{"raised while queued", []ev{
			{p: 0, out: kq.AddedQueued, want: calls{add: true}},
			{p: 2, out: kq.AddedCoalesced, want: calls{raise: true, from: 0, to: 2}},
			{handout: true, p: 2, want: calls{get: true, getPrio: 2}},
		}},
		{"waiting, then a plain add at a lower priority", []ev{
			{p: 5, out: kq.AddedWaiting},
			{p: 1, out: kq.AddedKept},
			{p: 0, out: kq.AddedQueued, want: calls{add: true, addPrio: 5}},
			{handout: true, p: 5, want: calls{get: true, getPrio: 5}},
		}},
		{"a delay passed unseen: counted at the Get", []ev{
			{p: 2, out: kq.AddedWaiting},
			{handout: true, p: 2, want: calls{add: true, addPrio: 2, get: true, getPrio: 2}},
		}},
		{"a delay passed unseen: counted at the next add", []ev{
			{p: -1, out: kq.AddedWaiting},
			{p: -3, out: kq.AddedCoalesced, want: calls{add: true, addPrio: -1}},
			{handout: true, p: -1, want: calls{get: true, getPrio: -1}},
		}},
		{"dirty while processing, raised, handed out again", []ev{
			{p: 0, out: kq.AddedQueued, want: calls{add: true}},
			{handout: true, p: 0, want: calls{get: true}},
			{p: 1, out: kq.AddedDirty, want: calls{add: true, addPrio: 1}},
			{p: 4, out: kq.AddedDirty, want: calls{raise: true, from: 1, to: 4}},
			{p: 2, out: kq.AddedDirty},
			{handout: true, p: 4, want: calls{get: true, getPrio: 4}},
		}},
	}
	for _, c := range cases {
		var m meta
		for i, e := range c.evs {
			var got calls
			if e.handout {
				got = m.handedOut(e.p)
			} else {
				got = m.added(e.p, e.out)
			}
			if got != e.want {
				t.Errorf("%s: event %d: %+v, want %+v", c.name, i, got, e.want)
			}
		}
		if m.counted || m.waiting {
			t.Errorf("%s: still counted or waiting after the last Get: %+v", c.name, m)
		}
	}
}

// The calls reach the provider: the depth by level with a provider with
// priority, the plain depth without.
func TestMetricsReportToTheProvider(t *testing.T) {
	f := newFakeMetrics()
	mt := newQueueMetrics[string](f, "q")
	report(mt, "a", calls{add: true, addPrio: 1})
	report(mt, "a", calls{raise: true, from: 1, to: 3})
	report(mt, "a", calls{get: true, getPrio: 3})
	mt.retry()
	depth, adds, retries := f.snapshot()
	if want := map[int]int{1: 0, 3: 0}; !reflect.DeepEqual(depth, want) || adds != 1 || retries != 1 {
		t.Errorf("depth %v adds %d retries %d, want %v, 1, 1", depth, adds, retries, want)
	}
	if f.latency != 1 {
		t.Errorf("latency observed %d times, want 1", f.latency)
	}
	plain := newFakeMetrics()
	mt = newQueueMetrics[string](plainProvider{plain}, "q")
	report(mt, "a", calls{add: true, addPrio: 1})
	if d, _, _ := plain.snapshot(); len(d) != 0 || plain.plainDepth != 1 {
		t.Errorf("a provider without priority: depth %v, plain %d", d, plain.plainDepth)
	}
	if _, ok := newQueueMetrics[string](f, "").(noMetrics[string]); !ok {
		t.Error("a queue without a name has metrics")
	}
	// no provider given: SetProvider's, which controller-runtime set (as
	// it does in every program that links it), with its depth by priority
	g := reflect.TypeOf(provider.Global())
	if g.PkgPath() != "sigs.k8s.io/controller-runtime/pkg/internal/metrics" {
		t.Fatalf("the global provider is %v, not controller-runtime's", g)
	}
	if m, ok := newQueueMetrics[string](nil, "q").(*defaultQueueMetrics[string]); !ok || m.depthWithPriority == nil {
		t.Errorf("no provider given: %T, want controller-runtime's with its depth by priority", m)
	}
}
