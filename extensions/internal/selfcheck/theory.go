package selfcheck

import (
	"fmt"
	"math"
	"time"
)

// Check is one verdict: what was measured against what theory (or the injected fault) says.
type Check struct {
	Name     string  `json:"name"`
	Measured float64 `json:"measured"`
	Expected float64 `json:"expected"`
	Lo       float64 `json:"lo"` // the pass range, inclusive
	Hi       float64 `json:"hi"`
	Unit     string  `json:"unit"` // ms, %, messages
	Pass     bool    `json:"pass"`
	Why      string  `json:"why"` // where the expected value comes from
}

// within judges measured against [expected-tol, expected+tol].
func within(name string, measured, expected, tol float64, unit, why string) Check {
	lo, hi := expected-tol, expected+tol
	return Check{Name: name, Measured: measured, Expected: expected, Lo: lo, Hi: hi, Unit: unit,
		Pass: measured >= lo && measured <= hi && !math.IsNaN(measured), Why: why}
}

// Stall theory for an open-model load at rate R stalled for S inside a window of N measured
// samples: a message due at u seconds into the stall waits until its end, S - u; the R*S
// messages due during it have latencies spread evenly over 0…S, every other one the broker's
// usual (well under a millisecond here). So the share of samples above X (0 ≤ X < S) is
// R*(S-X)/N, and the value above which a share 1-q lies (quantile q) is S - (1-q)*N/R, while
// that is positive: a quantile past the stalled share is the usual latency.

// shareAbove is the expected share (0…1) of N samples above x.
func shareAbove(rate float64, stall, x time.Duration, n int64) float64 {
	if n <= 0 || x >= stall {
		return 0
	}
	return rate * (stall - x).Seconds() / float64(n)
}

// quantile is the expected value at quantile q (0…1) of the N samples, in ms (0 when the
// quantile lies outside the stalled share).
func quantile(rate float64, stall time.Duration, q float64, n int64) float64 {
	v := stall.Seconds() - (1-q)*float64(n)/rate
	return math.Max(0, v) * 1e3
}

// shareCheck judges the measured share of samples above x against theory, within the share
// of the samples sent in tol (the stall's edges and the burst after it move some either side).
func shareCheck(name string, measured float64, rate float64, stall, x time.Duration, n int64, tol time.Duration) Check {
	exp := shareAbove(rate, stall, x, n)
	c := within(name, 100*measured, 100*exp, 100*rate*tol.Seconds()/float64(n), "%",
		fmt.Sprintf("R*(S-X)/N = %.0f/s * (%v - %v) / %d samples", rate, stall, x, n))
	return c
}

// quantileCheck judges a measured quantile (ms) of the stalled run against theory, within
// tol (ms).
func quantileCheck(name string, measuredMs float64, rate float64, stall time.Duration, q float64, n int64, tolMs float64) Check {
	exp := quantile(rate, stall, q, n)
	return within(name, measuredMs, exp, tolMs, "ms",
		fmt.Sprintf("S - (1-q)*N/R = %v - %.3g * %d / %.0f/s", stall, 1-q, n, rate))
}
