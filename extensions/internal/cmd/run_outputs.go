package cmd

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/spf13/pflag"
)

// misreadOutputs are k6's outputs that read mqbench's per-second statistics (samples tagged
// stat=p99, stat=count, …) as one trend's values: their latency series are then not
// distributions. Each with what to use instead.
var misreadOutputs = map[string]string{
	"experimental-prometheus-rw": "--out mqbench-prometheus (native histograms; docs/dashboards.md#prometheus)",
	"opentelemetry":              "samples: raw, or --out mqbench-prometheus (docs/web-dashboard.md)",
	"experimental-opentelemetry": "samples: raw, or --out mqbench-prometheus (docs/web-dashboard.md)",
}

// outputWarnings says, once per output, when a run with aggregated samples sends them to an
// output that would misread them (the run itself and its verdict are unaffected).
func outputWarnings(flags *pflag.FlagSet, sc *scenario.Scenario, getenv func(string) string) []string {
	samples := sc.Samples
	if v := getenv(runenv.Samples); v != "" {
		samples = v
	}
	if samples == scenario.SamplesRaw {
		return nil
	}
	outs, _ := flags.GetStringArray("out")
	if v := getenv("K6_OUT"); v != "" && len(outs) == 0 {
		outs = strings.Split(v, ",")
	}
	var warn []string
	seen := map[string]bool{}
	for _, o := range outs {
		name, _, _ := strings.Cut(strings.TrimSpace(o), "=")
		if use, bad := misreadOutputs[name]; bad && !seen[name] {
			seen[name] = true
			warn = append(warn, fmt.Sprintf("mqbench run: %s receives mqbench's per-second latency statistics as one trend's values (samples: aggregated), so its latency series are not distributions; use %s", name, use))
		}
	}
	return warn
}

// printOutputWarnings writes outputWarnings to w (the run's stderr).
func printOutputWarnings(w io.Writer, flags *pflag.FlagSet, sc *scenario.Scenario) {
	for _, line := range outputWarnings(flags, sc, os.Getenv) {
		fmt.Fprintln(w, line)
	}
}
