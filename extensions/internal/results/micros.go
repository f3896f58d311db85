package results

import (
	"math"

	"github.com/mqbench/xk6-mqbench/internal/jsnum"
)

// Micros is a latency in microseconds as every mqbench output spells it: 8.25us, 85.3us,
// 1.24ms, 2.10s (summary.txt, the console, the progress line, the report, and the reasons
// summary.json gives).
func Micros(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v < 10:
		return jsnum.ToFixed(v, 2) + "us"
	case v < 1000:
		return jsnum.ToFixed(v, 1) + "us"
	case v < 1e6:
		return jsnum.ToFixed(v/1e3, 2) + "ms"
	}
	return jsnum.ToFixed(v/1e6, 2) + "s"
}
