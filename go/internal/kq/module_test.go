//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package kq

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Until the module's information was read, each call reads it again: a
// process started before the module was loaded sees it once it is. A
// path that is absent, then a file that is no wq device, give two errors.
func TestModuleIsReadAgainUntilItIsThere(t *testing.T) {
	moduleMu.Lock()
	read := moduleRead
	moduleMu.Unlock()
	if read {
		t.Skip("the module's information was read already")
	}
	p := filepath.Join(t.TempDir(), "wq")
	devPath = p
	defer func() { devPath = DevPath }()
	if err := ModuleErr(); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("an absent %s: %v", p, err)
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ModuleErr(); err == nil || !strings.Contains(err.Error(), "module info") {
		t.Fatalf("%s is there now, not a wq device: %v, want the module info call's error", p, err)
	}
	if Ready(0) == nil || Module().ABIVersion != 0 {
		t.Error("a file that is no wq device is ready")
	}
}
