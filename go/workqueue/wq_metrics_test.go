package workqueue

// The metrics' values against the kernel: the depth of keys the kernel
// made pending by itself (a delay passed) and of restart-safe queues is
// counted, never negative, and comes back to 0.

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/kqtest"
)

// valueProvider keeps each metric's value (gauges and counters) and the
// lowest value each gauge had; histograms count their observations.
type valueProvider struct {
	mu  sync.Mutex
	val map[string]float64
	low map[string]float64
}

type vm struct {
	p    *valueProvider
	name string
}

func (m vm) change(f func(float64) float64) {
	m.p.mu.Lock()
	defer m.p.mu.Unlock()
	v := f(m.p.val[m.name])
	m.p.val[m.name] = v
	if v < m.p.low[m.name] {
		m.p.low[m.name] = v
	}
}
func (m vm) Inc()              { m.change(func(v float64) float64 { return v + 1 }) }
func (m vm) Dec()              { m.change(func(v float64) float64 { return v - 1 }) }
func (m vm) Set(x float64)     { m.change(func(float64) float64 { return x }) }
func (m vm) Observe(x float64) { m.change(func(v float64) float64 { return v + 1 }) }

func newValueProvider() *valueProvider {
	return &valueProvider{val: map[string]float64{}, low: map[string]float64{}}
}

func (p *valueProvider) NewDepthMetric(string) GaugeMetric            { return vm{p, "depth"} }
func (p *valueProvider) NewAddsMetric(string) CounterMetric           { return vm{p, "adds"} }
func (p *valueProvider) NewLatencyMetric(string) HistogramMetric      { return vm{p, "latency"} }
func (p *valueProvider) NewWorkDurationMetric(string) HistogramMetric { return vm{p, "work"} }
func (p *valueProvider) NewRetriesMetric(string) CounterMetric        { return vm{p, "retries"} }
func (p *valueProvider) NewUnfinishedWorkSecondsMetric(string) SettableGaugeMetric {
	return vm{p, "unfinished"}
}
func (p *valueProvider) NewLongestRunningProcessorSecondsMetric(string) SettableGaugeMetric {
	return vm{p, "longest"}
}

func (p *valueProvider) get(name string) (val, low float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.val[name], p.low[name]
}

// waitValue polls until metric name has value want (20 s at most: the
// metrics goroutine looks every 500 ms, a guest under emulation is slow).
func waitValue(t *testing.T, p *valueProvider, name string, want float64) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if v, _ := p.get(name); v == want {
			return
		}
		if time.Now().After(end) {
			v, _ := p.get(name)
			t.Fatalf("%s is %v after 20 s, want %v", name, v, want)
		}
	}
}

func expectValues(t *testing.T, p *valueProvider, want map[string]float64) {
	t.Helper()
	for name, w := range want {
		if v, _ := p.get(name); v != w {
			t.Errorf("%s: %v, want %v", name, v, w)
		}
	}
	if _, low := p.get("depth"); low < 0 {
		t.Errorf("the depth went down to %v", low)
	}
}

// Keys that became ready when their delay passed are counted by the
// metrics goroutine (depth and adds), before a Get takes them, and once.
func TestWqDepthCountsKeysMadeReady(t *testing.T) {
	kqtest.NeedKernel(t)
	p := newValueProvider()
	q := NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[int]{Name: "ready", MetricsProvider: p})
	defer q.ShutDown()
	for i := 0; i < 100; i++ {
		q.AddAfter(i, time.Millisecond)
	}
	waitValue(t, p, "depth", 100)
	expectValues(t, p, map[string]float64{"adds": 100, "retries": 100})
	for i := 0; i < 100; i++ {
		it, _ := q.Get()
		q.Done(it)
	}
	expectValues(t, p, map[string]float64{"depth": 0, "adds": 100, "latency": 100, "work": 100})
}

// A restart-safe queue's depth: delayed and rate-limited keys, and a key
// another handle added (as a previous process), are counted once and
// the depth never goes below 0.
func TestWqRestartSafeDepth(t *testing.T) {
	kqtest.NeedKernel(t)
	name := fmt.Sprintf("go.rsdepth.%d", os.Getpid())
	defer kq.DestroyNamed(name)
	p := newValueProvider()
	q, err := NewTypedRestartSafeQueue(NewTypedItemExponentialFailureRateLimiter[objectName](time.Millisecond, time.Second),
		TypedRateLimitingQueueConfig[objectName]{Name: name, MetricsProvider: p})
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	q.AddAfter(objectName{"ns", "a"}, time.Millisecond)
	q.AddRateLimited(objectName{"ns", "b"})
	q.Add(objectName{"ns", "c"})
	other, err := NewSharedRateLimitingQueue(SharedQueueConfig{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.Add(`{"Namespace":"ns","Name":"d"}`)
	for i := 0; i < 4; i++ {
		it, shut := q.Get()
		if shut {
			t.Fatal("shutdown")
		}
		q.Done(it)
	}
	expectValues(t, p, map[string]float64{"depth": 0, "adds": 4, "latency": 4, "work": 4, "retries": 2})
}
