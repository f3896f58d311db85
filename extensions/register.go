// Package mqbench registers the k6 extension behind mqbench and nothing else: the JS module
// the entry script imports (internal/jsmodule), the `k6 x mqbench` commands (internal/cmd),
// the aggregated InfluxDB output, and every broker driver. It is an ordinary xk6 module:
//
//	xk6 build --with github.com/mqbench/xk6-mqbench=./extensions
package mqbench

import (
	"os"

	"github.com/mqbench/xk6-mqbench/internal/cmd"
	"github.com/mqbench/xk6-mqbench/internal/jsmodule"
	"github.com/mqbench/xk6-mqbench/internal/output/aggregate"
	"go.k6.io/k6/v2/js/modules"
	"go.k6.io/k6/v2/output"
	"go.k6.io/k6/v2/subcommand"

	_ "github.com/mqbench/xk6-mqbench/internal/driver/all" // every broker driver registers itself
)

func init() {
	modules.Register(jsmodule.Name, jsmodule.New())
	output.RegisterExtension(aggregate.Name, aggregate.New)
	cmd.QuietExtensionResolution(os.Args)
	subcommand.RegisterExtension("mqbench", cmd.New)
}
