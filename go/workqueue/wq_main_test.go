package workqueue

// The test binary's guard: in the guests (kqtest.RequireEnv set) every
// test, client-go's own among them, must run against the kernel, so a
// queue that would be in-process there fails the whole binary instead of
// letting it pass on client-go's queue.

import (
	"fmt"
	"os"
	"testing"

	// client-go's queue_test.go and parallelizer_test.go, which make
	// check builds into this package (scripts/clientgo-tests), import
	// these: they are in go.mod for them.
	_ "github.com/google/go-cmp/cmp"
	_ "k8s.io/apimachinery/pkg/util/wait"

	"wq.dev/go/internal/kqtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(kqtest.RequireEnv) != "" {
		q := NewTyped[int]()
		b, err := BackendOf(q)
		q.ShutDown()
		if b != BackendKernel {
			fmt.Fprintf(os.Stderr, "%s is set but a queue is %v: %v\n", kqtest.RequireEnv, b, err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}
