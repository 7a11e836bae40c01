package provider

import (
	"testing"

	"k8s.io/client-go/util/workqueue"
)

type testProvider struct{ workqueue.MetricsProvider }

// The linkname'd variable is client-go's: no-op at first, SetProvider's
// after it (only the first call counts, as in client-go).
func TestGlobalIsSetProviders(t *testing.T) {
	if !IsNoop(Global()) {
		t.Fatalf("before SetProvider: %T, want client-go's no-op provider", Global())
	}
	p := &testProvider{}
	workqueue.SetProvider(p)
	workqueue.SetProvider(&testProvider{})
	if Global() != workqueue.MetricsProvider(p) {
		t.Fatalf("after SetProvider: %T %p, want %p", Global(), Global(), p)
	}
	if IsNoop(Global()) || !IsNoop(nil) {
		t.Error("IsNoop")
	}
	if Resolve(nil) != workqueue.MetricsProvider(p) {
		t.Error("Resolve(nil) is not the global provider")
	}
	q := &testProvider{}
	if Resolve(q) != workqueue.MetricsProvider(q) {
		t.Error("Resolve(q) is not q")
	}
}
