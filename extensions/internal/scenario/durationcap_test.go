package scenario

import (
	"strings"
	"testing"
)

// Each duration may be 30 days and no more; the cells together too (a cell's warm-up,
// duration and drain, summed over the matrix), whether each duration is given or comes
// from a message count.
func TestDurationCaps(t *testing.T) {
	for _, tc := range []struct {
		name, workload, cells string
		want                  string // "" when valid
	}{
		{"a value at the cap", "duration: 720h, drain: 0s", "- { size: 1KB, rate: 1 }", ""},
		{"a value 1ns over", "duration: 720h0m0.000000001s", "- { size: 1KB, rate: 1 }",
			"t.yaml:3:45: workload.duration: must be at most 720h (30 days), got 720h0m0.000000001s"},
		{"Go's longest duration", "duration: 2562047h", "- { size: 1KB, rate: 1 }",
			"t.yaml:3:45: workload.duration: must be at most 720h (30 days), got 2562047h"},
		{"Go's most negative", "duration: 10s, warmup: -2562047h", "- { size: 1KB, rate: 1 }",
			"t.yaml:3:58: workload.warmup: must not be negative, got -2562047h"},
		{"the run at the cap", "duration: 240h, drain: 0s", "- { size: 1KB, rate: 1 }\n- { size: 1KB, rate: 1 }\n- { size: 1KB, rate: 1 }", ""},
		{"the run 1s over", "duration: 240h, drain: 0s", "- { size: 1KB, rate: 1 }\n- { size: 1KB, rate: 1 }\n- { size: 1KB, rate: 1, warmup: 1s }",
			"t.yaml:4:1: matrix: the cells last 30.0 days together (warm-up, duration and drain of each), more than the 720h (30 days) limit of a run"},
		{"messages for decades, nine cells", "duration: 10s",
			strings.Repeat("- { size: 1KB, rate: 1, messages: 1000000000 }\n", 9),
			"t.yaml:4:1: matrix: the cells last 104166.7 days together (warm-up, duration and drain of each), more than the 720h (30 days) limit of a run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := "name: t\nbroker: { type: nats }\nworkload: { destination: bench.t, " + tc.workload + " }\nmatrix:\n" + tc.cells + "\n"
			_, err := Parse("t.yaml", []byte(text))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if got := strings.Join(problems(t, text), " | "); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
