package mqbench

import (
	"testing"

	"go.k6.io/k6/v2/ext"
)

// Linking the root package registers the JS module, the output and the subcommand under the
// names the entry script, users' --out and `k6 x mqbench` use.
func TestRegistered(t *testing.T) {
	for _, c := range []struct {
		kind ext.ExtensionType
		name string
	}{
		{ext.JSExtension, "k6/x/mqbench"},
		{ext.OutputExtension, "mqbench-influxdb"},
		{ext.SubcommandExtension, "mqbench"},
	} {
		if ext.Get(c.kind)[c.name] == nil {
			t.Errorf("no k6 %v extension %q registered", c.kind, c.name)
		}
	}
}
