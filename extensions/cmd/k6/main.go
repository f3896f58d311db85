// Command k6 is the custom k6 binary of mqbench: stock k6 plus the mqbench extension, the
// same program xk6 would generate, with every version locked in this module's go.mod.
package main

import (
	"os"
	"runtime/debug"

	k6cmd "go.k6.io/k6/v2/cmd"

	_ "github.com/mqbench/xk6-mqbench" // k6/x/mqbench and `k6 x mqbench`
)

func main() {
	// This binary already holds every extension it runs: no automatic extension resolution
	// (it would fetch a catalogue over the network and print "Loading the subcommand list..."
	// before every `k6 x mqbench` answer), and no usage report. Either can still be set.
	for k, v := range map[string]string{"K6_AUTO_EXTENSION_RESOLUTION": "false", "K6_NO_USAGE_REPORT": "true"} {
		if _, set := os.LookupEnv(k); !set {
			_ = os.Setenv(k, v)
		}
	}
	// The load generator's garbage collector: with mqbench's per-second aggregates the live
	// heap is small and flat, so collecting at 200% growth instead of Go's 100% halves GC
	// work (measured: CPU per message at 100,000 msg/s down ~12%) for a few tens of MB.
	// GOGC set in the environment wins.
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(200)
	}
	k6cmd.Execute()
}
