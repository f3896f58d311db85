package cmd

import "testing"

// reproduce's actions and their arguments are checked before anything runs.
func TestReproduceBadArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		line string
	}{
		{[]string{"reproduce"}, "mqbench reproduce: give run SCENARIO, rows latency|rate SUMMARY, rows closed SUMMARY NODES or cell SUMMARY ID FIELD"},
		{[]string{"reproduce", "run"}, "mqbench reproduce: give run SCENARIO"},
		{[]string{"reproduce", "--scale", "2", "run", "x.yaml"}, "mqbench reproduce: --scale 2: give a fraction in (0, 1]"},
		{[]string{"reproduce", "rows", "speed", "none.json"}, "mqbench reproduce: open none.json"},
		{[]string{"reproduce", "rows", "latency", "s.json", "3"}, "mqbench reproduce: give run SCENARIO"},
		{[]string{"reproduce", "run", "none.yaml"}, "mqbench reproduce: open none.yaml"},
	} {
		wantUsage(t, c.args, c.line)
	}
}
