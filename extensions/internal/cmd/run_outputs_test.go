package cmd

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/spf13/pflag"
)

// An output that would read the per-second statistics as one trend is named, once, with
// what to use instead; raw samples, mqbench's outputs and k6's others are left alone.
func TestOutputWarnings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		outs    []string
		env     map[string]string
		samples string
		want    []string // substrings, one per warning
	}{
		{"prometheus-rw", []string{"experimental-prometheus-rw"}, nil, "aggregated", []string{"experimental-prometheus-rw receives", "--out mqbench-prometheus"}},
		{"twice, said once", []string{"experimental-prometheus-rw=http://x", "experimental-prometheus-rw"}, nil, "aggregated", []string{"experimental-prometheus-rw receives"}},
		{"opentelemetry from K6_OUT", nil, map[string]string{"K6_OUT": "opentelemetry,json=x.json"}, "aggregated", []string{"opentelemetry receives"}},
		{"raw samples", []string{"experimental-prometheus-rw"}, nil, "raw", nil},
		{"raw by MQ_SAMPLES", []string{"opentelemetry"}, map[string]string{"MQ_SAMPLES": "raw"}, "aggregated", nil},
		{"mqbench's outputs and k6's influxdb", []string{"mqbench-prometheus", "mqbench-influxdb", "influxdb", "csv=x.csv"}, nil, "aggregated", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			fs.StringArrayP("out", "o", nil, "")
			var args []string
			for _, o := range tc.outs {
				args = append(args, "--out", o)
			}
			if err := fs.Parse(args); err != nil {
				t.Fatal(err)
			}
			got := outputWarnings(fs, &scenario.Scenario{Samples: tc.samples}, func(k string) string { return tc.env[k] })
			if len(tc.want) == 0 && len(got) > 0 || len(tc.want) > 0 && len(got) != 1 {
				t.Fatalf("warnings %q, want %d", got, min(len(tc.want), 1))
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("warning %q lacks %q", got[0], w)
				}
			}
		})
	}
}
