// Package provider reads the metrics provider that client-go's
// workqueue.SetProvider set (client-go keeps it in an unexported
// variable), so that a queue of this module reports where a client-go
// queue made at the same moment would.
//
// The variable is reached with go:linkname, pinned to the client-go
// release in go.mod: the linker fails the build if the symbol is gone,
// and provider_test.go checks the type and the value after SetProvider.
// This was chosen over the alternatives because it has no side effect
// (reflecting on a client-go queue would make that queue's metrics, and
// start and stop its goroutine) and works for every provider, not only
// for controller-runtime's registry.
package provider

import (
	"reflect"
	_ "unsafe" // go:linkname

	"k8s.io/client-go/util/workqueue"
)

//go:linkname global k8s.io/client-go/util/workqueue.globalMetricsProvider
var global workqueue.MetricsProvider

// Global returns the provider of workqueue.SetProvider (client-go's no-op
// provider if none was set).
func Global() workqueue.MetricsProvider {
	return global
}

// IsNoop says whether p is client-go's no-op provider (or nil).
func IsNoop(p workqueue.MetricsProvider) bool {
	if p == nil {
		return true
	}
	t := reflect.TypeOf(p)
	return t.PkgPath() == "k8s.io/client-go/util/workqueue" && t.Name() == "noopMetricsProvider"
}

// Resolve returns mp if not nil, else the global provider: what a
// client-go queue configured with mp reports to.
func Resolve(mp workqueue.MetricsProvider) workqueue.MetricsProvider {
	if mp != nil {
		return mp
	}
	return global
}
