package limiters_test

import (
	"runtime"
	"testing"
	"time"

	"wq.dev/go/internal/limiters"
	"wq.dev/go/workqueue"
)

// A recorded limiter's entry goes once the limiter is collected, and a
// new limiter at a reused address is not taken for the old one.
func TestEntriesGoWithTheirLimiters(t *testing.T) {
	before := limiters.Size()
	for i := 0; i < 100; i++ {
		workqueue.NewTypedItemExponentialFailureRateLimiter[int](time.Millisecond, time.Second)
	}
	if n := limiters.Size(); n < before+100 {
		t.Fatalf("%d entries after 100 limiters, %d before", n, before)
	}
	for end := time.Now().Add(20 * time.Second); limiters.Size() > before; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d entries left of %d once the limiters are unreachable", limiters.Size(), before)
		}
		runtime.GC()
	}
	if _, ok := limiters.Kernel(workqueue.TypedRateLimiter[int](&workqueue.TypedItemExponentialFailureRateLimiter[int]{})); ok {
		t.Error("a limiter the constructors did not make is the kernel's")
	}
}
