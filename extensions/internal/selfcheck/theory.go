package selfcheck

import (
	"fmt"
	"math"
	"slices"
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

// Judged against what the proxy saw. Theory is what a stall must do to an ideal machine; on a
// real one the burst released at the stall's end takes its time through the proxy and the
// in-process server (milliseconds on a quiet machine, once over two hundred beside brokers
// just started), and that time is the fault mqbench must report. So each check's expected value
// is the proxy's own measure of the same messages (each one's time from its sender to its
// receiver, the Trace of internal/faultproxy), and theory is shown beside it: a measure far from
// theory is the machine, one far from the proxy's is mqbench. Without the proxy's measure
// (messages it could not pair), theory is the expectation.

// shareCheck judges the measured share of samples above x within the share of the samples sent
// in tol (the stall's edges and the burst after it move some either side).
func shareCheck(name string, measured float64, rate float64, stall, x time.Duration, n int64, tol time.Duration, seen transits) Check {
	exp := shareAbove(rate, stall, x, n)
	why := fmt.Sprintf("R*(S-X)/N = %.0f/s * (%v - %v) / %d samples", rate, stall, x, n)
	tolShare := rate * tol.Seconds() / float64(n)
	theory := exp
	if seen.ok() {
		why = fmt.Sprintf("the proxy passed on %.3f %% of them in more than %v; theory: %.3f %% = %s", 100*seen.shareAbove(x), x, 100*exp, why)
		exp = seen.shareAbove(x)
	} else {
		why += seen.missing()
	}
	return held(within(name, 100*measured, 100*exp, 100*tolShare, "%", why), exp >= theory-tolShare)
}

// quantileCheck judges a measured quantile (ms) of the stalled run within tol (ms).
func quantileCheck(name string, measuredMs float64, rate float64, stall time.Duration, q float64, n int64, tolMs float64, seen transits) Check {
	exp := quantile(rate, stall, q, n)
	why := fmt.Sprintf("S - (1-q)*N/R = %v - %.3g * %d / %.0f/s", stall, 1-q, n, rate)
	theory := exp
	if seen.ok() {
		why = fmt.Sprintf("the proxy passed them on in p%g %.1f ms; theory: %.1f ms = %s", 100*q, seen.quantileMs(q), exp, why)
		exp = seen.quantileMs(q)
	} else {
		why += seen.missing()
	}
	return held(within(name, measuredMs, exp, tolMs, "ms", why), exp >= theory-tolMs)
}

// held fails a check whose expected value is below theory by more than its tolerance: the
// proxy did not hold the messages as the stall must, so agreeing with it proves nothing (a
// machine can only make the burst later, never the stall shorter).
func held(c Check, ok bool) Check {
	if !ok {
		c.Pass = false
		c.Why += "; the proxy did not hold them as the stall must"
	}
	return c
}

// transits are the proxy's measure of the messages a check judges: each one's time through
// it, sorted; err says why there is none.
type transits struct {
	d   []time.Duration
	err error
}

func (t transits) ok() bool { return t.err == nil && len(t.d) > 0 }

func (t transits) missing() string {
	if t.err == nil {
		return ""
	}
	return fmt.Sprintf("; the proxy's measure: none, %v", t.err)
}

// quantileMs is the nearest-rank value at q (0…1), in ms.
func (t transits) quantileMs(q float64) float64 {
	k := min(len(t.d)-1, max(0, int(math.Ceil(q*float64(len(t.d))))-1))
	return ms(t.d[k])
}

// shareAbove is the share (0…1) above x.
func (t transits) shareAbove(x time.Duration) float64 {
	i, _ := slices.BinarySearch(t.d, x+1)
	return float64(len(t.d)-i) / float64(len(t.d))
}
