package mqbench

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/version"
	"go.k6.io/k6/v2/ext"
)

// Linking the root package registers the JS module, the outputs and the subcommand under the
// names the entry script, users' --out and `k6 x mqbench` use.
func TestRegistered(t *testing.T) {
	for _, c := range []struct {
		kind ext.ExtensionType
		name string
	}{
		{ext.JSExtension, "k6/x/mqbench"},
		{ext.OutputExtension, "mqbench-influxdb"},
		{ext.OutputExtension, "mqbench-prometheus"},
		{ext.SubcommandExtension, "mqbench"},
	} {
		if ext.Get(c.kind)[c.name] == nil {
			t.Errorf("no k6 %v extension %q registered", c.kind, c.name)
		}
	}
}

// `k6 version` lists mqbench's entries under its module path with its version (k6 alone
// named none for a main module or a folder replacement, and showed package paths).
func TestVersionListed(t *testing.T) {
	ours := 0
	for _, e := range ext.GetAll() {
		if !strings.HasPrefix(e.Path, "github.com/mqbench/") {
			continue
		}
		ours++
		if e.Path != version.Module || e.Version != version.Mqbench() || e.Version == "" {
			t.Errorf("k6 lists %s; want %s %s", e, version.Module, version.Mqbench())
		}
	}
	if ours != 4 {
		t.Errorf("%d mqbench extensions listed, want 4 (module, two outputs, subcommand)", ours)
	}
}
