package mqbench

import (
	"testing"

	"go.k6.io/k6/v2/ext"
)

// The output's name is what users put after --out, in scripts/run.sh, compose and CI: linking
// the root package must keep registering it under that name.
func TestOutputRegistered(t *testing.T) {
	if ext.Get(ext.OutputExtension)["mqbench-influxdb"] == nil {
		t.Fatal(`no k6 output "mqbench-influxdb" registered`)
	}
}
