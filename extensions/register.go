// Package mqbench registers the k6 extension behind mqbench and nothing else: the JS module
// the entry script imports (internal/jsmodule), the `k6 x mqbench` commands (internal/cmd),
// the aggregated InfluxDB output, the Prometheus remote write output, the arrival-rate executor
// (internal/arrival/executor) and every broker driver. It is an ordinary xk6 module:
//
//	xk6 build --with github.com/mqbench/xk6-mqbench=./extensions
package mqbench

import (
	"os"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/cmd"
	"github.com/mqbench/xk6-mqbench/internal/jsmodule"
	"github.com/mqbench/xk6-mqbench/internal/output/aggregate"
	"github.com/mqbench/xk6-mqbench/internal/output/promrw"
	"github.com/mqbench/xk6-mqbench/internal/version"
	"go.k6.io/k6/v2/ext"
	"go.k6.io/k6/v2/js/modules"
	"go.k6.io/k6/v2/output"
	"go.k6.io/k6/v2/subcommand"

	_ "github.com/mqbench/xk6-mqbench/internal/arrival/executor" // the arrival-rate executor registers itself with k6
	_ "github.com/mqbench/xk6-mqbench/internal/driver/all"       // every broker driver registers itself
)

func init() {
	modules.Register(jsmodule.Name, jsmodule.New())
	output.RegisterExtension(aggregate.Name, aggregate.New)
	output.RegisterExtension(promrw.Name, promrw.New)
	cmd.QuietExtensionResolution(os.Args)
	subcommand.RegisterExtension("mqbench", cmd.New)
	nameVersion()
}

// nameVersion puts mqbench's module path and version (internal/version) on its entries in
// k6's extension registry, which `k6 version` lists. k6 reads them from build info alone: a
// dependency's version, nothing at all when mqbench is the main module (bin/k6, the image)
// or a folder replacement (xk6 --with …=./extensions), where it also showed package paths.
// ext.Get hands out the registry's own entries, so setting them here is what k6 lists.
func nameVersion() {
	v := version.Mqbench()
	for _, typ := range []ext.ExtensionType{ext.JSExtension, ext.OutputExtension, ext.SubcommandExtension} {
		for _, e := range ext.Get(typ) {
			if e.Path == version.Module || strings.HasPrefix(e.Path, version.Module+"/") {
				e.Path, e.Version = version.Module, v
			}
		}
	}
}
