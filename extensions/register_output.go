package mqbench

import (
	"github.com/mqbench/xk6-mqbench/internal/output/aggregate"
	"go.k6.io/k6/v2/output"
)

// The "mqbench-influxdb" output (--out mqbench-influxdb) is registered here, beside the JS
// module and the subcommands, so that linking this package is what brings it into k6.
func init() { output.RegisterExtension(aggregate.Name, aggregate.New) }
