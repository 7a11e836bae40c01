package workqueue

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/klog/v2"
)

// logOnceRuns makes each run's reason new: a reason is logged once per
// process, and go test -count runs the test again in the same one.
var logOnceRuns atomic.Int64

// A queue that is in-process is logged through klog once per reason.
func TestWqInProcessIsLoggedOnce(t *testing.T) {
	var buf bytes.Buffer
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	fs.Set("logtostderr", "false")
	klog.SetOutput(&buf)
	defer func() { fs.Set("logtostderr", "true"); klog.SetOutput(nil) }()
	why := fmt.Errorf("a reason of this test, run %d", logOnceRuns.Add(1))
	for i := 0; i < 3; i++ {
		if err := inProcess(nil, "q", why); !errors.Is(err, why) {
			t.Fatalf("inProcess: %v does not wrap the reason", err)
		}
	}
	klog.Flush()
	if n := strings.Count(buf.String(), why.Error()); n != 1 {
		t.Errorf("logged %d times, want once: %q", n, buf.String())
	}
}
