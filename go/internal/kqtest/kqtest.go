// Package kqtest is what the tests of packages workqueue and
// priorityqueue against the kernel share. Only tests import it.
package kqtest

import (
	"os"
	"testing"

	"wq.dev/go/internal/kq"
)

// NeedKernel skips t without /dev/wq (the wq module is not loaded): the
// tests against the kernel run in the guests (selftests/go_workqueue.sh).
func NeedKernel(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(kq.DevPath); err != nil {
		t.Skip("no /dev/wq (the wq module is not loaded)")
	}
}
