package priorityqueue

// controller-runtime's scenarios of its priority queue (its Describe
// block, which needs no clock), as functions of a queue: the host runs
// them against the model (model_test.go), the guest against the kernel
// with the metrics controller-runtime expects (kernel_test.go). Where the
// kernel's order is not controller-runtime's (an item added while it is
// processed goes to the tail of its level at its Done), the scenario says
// so and expects the kernel's.

import (
	"maps"
	"testing"
	"time"
)

type scenarioQueue interface {
	AddWithOpts(o AddOpts, items ...string)
	GetWithPriority() (string, int, bool)
	Done(string)
	Len() int
}

// depthFunc: the metrics' depth by level now (nil: not checked).
type depthFunc func() map[int]int

type scenario struct {
	name string
	run  func(t *testing.T, q scenarioQueue, depth depthFunc)
	// after run (kernel only): the depth by level, adds and retries
	depth         map[int]int
	adds, retries int
}

func prio(p int) *int { return &p }

func expectGet(t *testing.T, q scenarioQueue, key string, p int) {
	t.Helper()
	k, gp, shut := q.GetWithPriority()
	if k != key || gp != p || shut {
		t.Fatalf("GetWithPriority: %q at %d (shutdown %v), want %q at %d", k, gp, shut, key, p)
	}
}

func expectLen(t *testing.T, q scenarioQueue, n int) {
	t.Helper()
	if got := q.Len(); got != n {
		t.Fatalf("Len %d, want %d", got, n)
	}
}

func expectDepth(t *testing.T, depth depthFunc, want map[int]int) {
	t.Helper()
	if depth == nil {
		return
	}
	if got := depth(); !maps.Equal(got, want) {
		t.Fatalf("depth by priority %v, want %v", got, want)
	}
}

// getPastLocked: foo is handed out and added again while it is processed
// (locked), then bar is added and handed out before it (the scenario
// "doesn't return an item that is currently locked", which the next one
// carries on from).
func getPastLocked(t *testing.T, q scenarioQueue) {
	t.Helper()
	q.AddWithOpts(AddOpts{}, "foo")
	expectGet(t, q, "foo", 0)
	q.AddWithOpts(AddOpts{}, "foo")
	q.AddWithOpts(AddOpts{}, "bar")
	expectGet(t, q, "bar", 0)
}

var scenarios = []scenario{
	{name: "returns an item", depth: map[int]int{0: 0}, adds: 1,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{}, "foo")
			expectGet(t, q, "foo", 0)
		}},
	{name: "returns items in order", depth: map[int]int{0: 0}, adds: 2,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{}, "foo")
			q.AddWithOpts(AddOpts{}, "bar")
			expectGet(t, q, "foo", 0)
			expectGet(t, q, "bar", 0)
		}},
	{name: "doesn't return an item that is currently locked", depth: map[int]int{0: 1}, adds: 3,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) { getPastLocked(t, q) }},
	// controller-runtime hands foo out before baz: its re-add came first
	{name: "queues an unlocked item again at the tail of its level", depth: map[int]int{0: 0}, adds: 4,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			getPastLocked(t, q)
			q.AddWithOpts(AddOpts{}, "baz")
			q.Done("foo")
			expectGet(t, q, "baz", 0)
			expectGet(t, q, "foo", 0)
		}},
	{name: "de-duplicates items", depth: map[int]int{0: 1}, adds: 1,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{}, "foo")
			q.AddWithOpts(AddOpts{}, "foo")
			expectLen(t, q, 1)
		}},
	{name: "enqueues a locked item", depth: map[int]int{0: 0}, adds: 2,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{}, "foo")
			expectLen(t, q, 1)
			expectGet(t, q, "foo", 0)
			q.AddWithOpts(AddOpts{}, "foo")
			expectLen(t, q, 1)
			q.Done("foo")
			expectGet(t, q, "foo", 0)
		}},
	{name: "retains the highest priority", depth: map[int]int{1: 0, 2: 0}, adds: 1,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{Priority: prio(1)}, "foo")
			q.AddWithOpts(AddOpts{Priority: prio(2)}, "foo")
			expectGet(t, q, "foo", 2)
			expectLen(t, q, 0)
		}},
	{name: "will not decrease the priority", depth: map[int]int{2: 0}, adds: 1,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{Priority: prio(2)}, "foo")
			q.AddWithOpts(AddOpts{Priority: prio(1)}, "foo")
			expectGet(t, q, "foo", 2)
			expectLen(t, q, 0)
		}},
	{name: "gets pushed to the front if the priority increases", depth: map[int]int{0: 2, 1: 0}, adds: 3,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{}, "foo")
			q.AddWithOpts(AddOpts{}, "bar")
			q.AddWithOpts(AddOpts{}, "baz")
			q.AddWithOpts(AddOpts{Priority: prio(1)}, "baz")
			expectGet(t, q, "baz", 1)
			expectLen(t, q, 2)
		}},
	{name: "retains the lowest after duration", depth: map[int]int{0: 0}, adds: 1, retries: 1,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{After: 0}, "foo")
			q.AddWithOpts(AddOpts{After: time.Hour}, "foo")
			expectGet(t, q, "foo", 0)
			expectLen(t, q, 0)
		}},
	{name: "doesn't include non-ready items in Len()", depth: map[int]int{0: 2}, adds: 2, retries: 2,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{After: time.Minute}, "foo")
			q.AddWithOpts(AddOpts{}, "baz")
			q.AddWithOpts(AddOpts{After: time.Minute}, "bar")
			q.AddWithOpts(AddOpts{}, "bal")
			expectLen(t, q, 2)
		}},
	{name: "updates metrics correctly for an item that gets initially added with after and then without",
		depth: map[int]int{0: 0}, adds: 1, retries: 1,
		run: func(t *testing.T, q scenarioQueue, depth depthFunc) {
			q.AddWithOpts(AddOpts{After: time.Hour}, "foo")
			expectLen(t, q, 0)
			expectDepth(t, depth, map[int]int{})
			q.AddWithOpts(AddOpts{}, "foo")
			expectLen(t, q, 1)
			expectDepth(t, depth, map[int]int{0: 1})
			expectGet(t, q, "foo", 0)
			expectLen(t, q, 0)
			expectDepth(t, depth, map[int]int{0: 0})
		}},
	{name: "updates metrics correctly when an item with after is re-added with higher priority and no after",
		depth: map[int]int{1: 0}, adds: 1, retries: 1,
		run: func(t *testing.T, q scenarioQueue, depth depthFunc) {
			q.AddWithOpts(AddOpts{After: time.Hour, Priority: prio(0)}, "foo")
			expectLen(t, q, 0)
			expectDepth(t, depth, map[int]int{})
			q.AddWithOpts(AddOpts{Priority: prio(1)}, "foo")
			expectLen(t, q, 1)
			expectDepth(t, depth, map[int]int{1: 1})
			expectGet(t, q, "foo", 1)
			expectLen(t, q, 0)
		}},
	{name: "follows FIFO order in the new priority queue when item priority changes", depth: map[int]int{0: 0, 1: 0}, adds: 2,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{Priority: prio(0)}, "foo")
			q.AddWithOpts(AddOpts{Priority: prio(1)}, "bar")
			q.AddWithOpts(AddOpts{Priority: prio(1)}, "foo")
			expectLen(t, q, 2)
			expectGet(t, q, "bar", 1)
			expectLen(t, q, 1)
			expectGet(t, q, "foo", 1)
			expectLen(t, q, 0)
		}},
	// beyond controller-runtime's scenarios
	{name: "an item added while processing comes back at the highest priority given meanwhile",
		depth: map[int]int{5: 0, 1: 0, 3: 0}, adds: 2,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{Priority: prio(5)}, "foo")
			expectGet(t, q, "foo", 5)
			q.AddWithOpts(AddOpts{Priority: prio(1)}, "foo")
			q.AddWithOpts(AddOpts{Priority: prio(3)}, "foo")
			q.AddWithOpts(AddOpts{Priority: prio(2)}, "foo")
			expectLen(t, q, 1)
			q.Done("foo")
			expectGet(t, q, "foo", 3)
		}},
	{name: "an add without a priority raises a negative one to 0", depth: map[int]int{-10: 0, -5: 0, 0: 0}, adds: 2,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{Priority: prio(-10)}, "foo")
			q.AddWithOpts(AddOpts{Priority: prio(-5)}, "bar")
			q.AddWithOpts(AddOpts{}, "foo")
			expectGet(t, q, "foo", 0)
			expectGet(t, q, "bar", -5)
		}},
	{name: "a waiting item keeps the highest priority of its adds", depth: map[int]int{4: 0}, adds: 1, retries: 2,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{After: time.Hour, Priority: prio(1)}, "foo")
			q.AddWithOpts(AddOpts{After: time.Hour, Priority: prio(4)}, "foo")
			expectLen(t, q, 0)
			q.AddWithOpts(AddOpts{}, "foo")
			expectGet(t, q, "foo", 4)
			q.Done("foo")
			expectLen(t, q, 0)
		}},
	{name: "a delayed add of a ready item only raises it", depth: map[int]int{0: 1, 2: 0}, adds: 2, retries: 1,
		run: func(t *testing.T, q scenarioQueue, _ depthFunc) {
			q.AddWithOpts(AddOpts{}, "foo")
			q.AddWithOpts(AddOpts{}, "bar")
			q.AddWithOpts(AddOpts{After: time.Hour, Priority: prio(2)}, "bar")
			expectLen(t, q, 2)
			expectGet(t, q, "bar", 2)
		}},
}

// The model agrees with controller-runtime's scenarios.
func TestModelScenarios(t *testing.T) {
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			q := &modelQueue{m: newModel(), fatal: func(m string) { t.Helper(); t.Fatal(m) }}
			s.run(t, q, nil)
		})
	}
}
