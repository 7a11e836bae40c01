// Package kqtest is what the tests of packages workqueue and
// priorityqueue against the kernel share. Only tests import it.
package kqtest

import (
	"os"
	"testing"
	"time"

	"wq.dev/go/internal/kq"
)

// RequireEnv, set (to anything) in the guests, makes a missing /dev/wq a
// failure instead of a skip, so that the kernel's tests cannot pass by
// skipping where the module should be.
const RequireEnv = "WQ_REQUIRE_KERNEL"

// NeedKernel skips t without /dev/wq (the wq module is not loaded), or
// fails it if RequireEnv is set: the tests against the kernel run in the
// guests (selftests/go_workqueue.sh), the in-process ones on the host.
func NeedKernel(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(kq.DevPath); err != nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("no %s, and %s is set: %v", kq.DevPath, RequireEnv, err)
		}
		t.Skip("no /dev/wq (the wq module is not loaded)")
	}
}

// NoKernel skips t where /dev/wq is: it tests the in-process fallback.
func NoKernel(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(kq.DevPath); err == nil {
		t.Skip("/dev/wq is there: the fallback's tests run on the host")
	}
}

// WaitFor polls cond for up to 20 s (a guest under emulation is slow),
// failing t with what it waited for if cond is still false by then.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("still not %s after 20 s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
