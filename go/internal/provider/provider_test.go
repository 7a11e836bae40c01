package provider

import (
	"testing"

	"k8s.io/client-go/util/workqueue"
)

type testProvider struct{ workqueue.MetricsProvider }

// firstSet is the provider the test's first run set: go test -count runs
// it again in the same process, where client-go keeps the first.
var firstSet *testProvider

// The linkname'd variable is client-go's: no-op at first, SetProvider's
// after it (only the first call counts, as in client-go). This test
// binary's client-go is go.mod's, a verified release.
func TestGlobalIsSetProviders(t *testing.T) {
	if v := buildVersion(); !IsVerified(v) {
		t.Fatalf("the build's client-go %q is not verified: add its release to Verified once its variable is checked", v)
	}
	p := firstSet
	if p == nil {
		if !IsNoop(Global()) || Global() == nil {
			t.Fatalf("before SetProvider: %T, want client-go's no-op provider", Global())
		}
		p = &testProvider{}
		workqueue.SetProvider(p)
		firstSet = p
	}
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

// Only released versions of the verified minors are read.
func TestIsVerified(t *testing.T) {
	for v, want := range map[string]bool{
		"v0.37.2": true, "v0.36.0": true, "v0.37.15": true,
		"v0.38.0": false, "v0.35.9": false, "v0.3.7": false, "v0.37": false, "v0.37.": false,
		"v0.37.0-alpha.1": false, "v0.0.0-20260101000000-abcdef123456": false,
		"v0.37.2+incompatible": false, "": false, "(devel)": false,
	} {
		if got := IsVerified(v); got != want {
			t.Errorf("IsVerified(%q) = %v, want %v", v, got, want)
		}
	}
}

// The version in a module cache path (a test binary has no dependencies
// in its build information).
func TestPathVersion(t *testing.T) {
	for file, want := range map[string]string{
		"/root/go/pkg/mod/k8s.io/client-go@v0.37.2/util/workqueue/metrics.go": "v0.37.2",
		"k8s.io/client-go@v0.36.6/util/workqueue/queue.go":                    "v0.36.6",
		"/src/client-go/util/workqueue/metrics.go":                            "",
		"/vendor/k8s.io/client-go/util/workqueue/metrics.go":                  "",
	} {
		if got := PathVersion(file); got != want {
			t.Errorf("PathVersion(%q) = %q, want %q", file, got, want)
		}
	}
}

// A program whose client-go is not verified reads no global provider.
func TestUnverifiedReadsNothing(t *testing.T) {
	checkOnce.Do(func() {}) // as if checked
	saved := usable
	usable = false
	defer func() { usable = saved }()
	workqueue.SetProvider(&testProvider{})
	if p := Global(); p != nil {
		t.Errorf("Global with an unverified client-go: %T, want nil", p)
	}
	if p := Resolve(nil); p != nil || !IsNoop(p) {
		t.Errorf("Resolve(nil): %T, want nil (no metrics)", p)
	}
}
