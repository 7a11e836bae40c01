package workqueue

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

// A queue that is in-process is logged through klog once per reason.
func TestWqInProcessIsLoggedOnce(t *testing.T) {
	var buf bytes.Buffer
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	fs.Set("logtostderr", "false")
	klog.SetOutput(&buf)
	defer func() { fs.Set("logtostderr", "true"); klog.SetOutput(nil) }()
	why := errors.New("a reason of this test")
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
