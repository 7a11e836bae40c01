// Package provider reads the metrics provider that client-go's
// workqueue.SetProvider set (client-go keeps it in an unexported
// variable), so that a queue of this module reports where a client-go
// queue made at the same moment would.
//
// The variable is reached with go:linkname, which nothing checks: if a
// client-go release renamed it, the build would still succeed and read a
// variable of its own (nil); if it changed its type, the program would
// read memory as the wrong type. So it is read only when the client-go
// the program is built with (its build information) is of a release the
// variable was verified on (Verified), and a nil value counts as none.
// Otherwise the global provider is taken as none, logged once: queues
// whose config gives no MetricsProvider report no metrics. This was
// chosen over the alternatives because it has no side effect (reflecting
// on a client-go queue would make that queue's metrics series, and start
// and stop its goroutine) and works for every provider, not only for
// controller-runtime's registry.
package provider

import (
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	_ "unsafe" // go:linkname

	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

//go:linkname global k8s.io/client-go/util/workqueue.globalMetricsProvider
var global workqueue.MetricsProvider

// Verified: the client-go minor releases whose globalMetricsProvider was
// checked to be a MetricsProvider variable that only SetProvider sets
// (v0.36.2, v0.36.6, v0.37.0, v0.37.2).
var Verified = []string{"v0.36", "v0.37"}

// ClientGo is the module path whose version is checked.
const ClientGo = "k8s.io/client-go"

// IsVerified says whether client-go version v (a module version, as the
// build information gives it) is of a release in Verified.
func IsVerified(v string) bool {
	for _, minor := range Verified {
		if rest, ok := strings.CutPrefix(v, minor+"."); ok && rest != "" && !strings.ContainsAny(rest, "-+") {
			return true
		}
	}
	return false
}

// buildVersion returns the version of client-go this program is built
// with: its build information's, or where that has none (a test binary's
// lists no dependencies) the one in the path of client-go's source files
// in the module cache ("k8s.io/client-go@v0.37.2/..."). "" if neither
// says (client-go replaced by a directory or another module, vendored in
// a test binary).
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range append([]*debug.Module{&bi.Main}, bi.Deps...) {
			if m.Path != ClientGo {
				continue
			}
			if r := m.Replace; r != nil {
				if r.Path != ClientGo {
					return ""
				}
				return r.Version
			}
			return m.Version
		}
	}
	f := runtime.FuncForPC(reflect.ValueOf(workqueue.SetProvider).Pointer())
	if f == nil {
		return ""
	}
	file, _ := f.FileLine(f.Entry())
	return PathVersion(file)
}

// PathVersion returns the client-go version in the path of one of its
// source files in the module cache, or "".
func PathVersion(file string) string {
	_, rest, ok := strings.Cut(filepath.ToSlash(file), ClientGo+"@")
	if !ok {
		return ""
	}
	v, _, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	return v
}

var (
	checkOnce sync.Once
	usable    bool
)

// readable says whether the variable may be read (checked once, and
// logged once if not).
func readable() bool {
	checkOnce.Do(func() {
		v := buildVersion()
		usable = IsVerified(v)
		if !usable {
			klog.Infof("wq: %s %q is not a release whose SetProvider this module was verified on (%s): "+
				"queues without a MetricsProvider of their own report no metrics", ClientGo, v, strings.Join(Verified, ", "))
		}
	})
	return usable
}

// Global returns the provider of workqueue.SetProvider (client-go's no-op
// provider if none was set), or nil if it cannot be read safely.
func Global() workqueue.MetricsProvider {
	if !readable() {
		return nil
	}
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

// Resolve returns mp if not nil, else the global provider (nil if it
// cannot be read): what a client-go queue configured with mp reports to.
func Resolve(mp workqueue.MetricsProvider) workqueue.MetricsProvider {
	if mp != nil {
		return mp
	}
	return Global()
}
