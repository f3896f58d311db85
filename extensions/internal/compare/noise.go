package compare

import (
	"math"
	"path/filepath"
	"sort"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// How the gate tells a regression from noise. Two runs of identical load differ: on a shared
// 2-core machine a 20 s run's NATS e2e p99 moved from 1.9 ms to 3.5 ms between identical runs,
// far beyond any tolerance and far beyond its sampling error, because the tail comes in bursts
// (a second's p99 varies by 50-120 % around its mean within one run). So the gate cuts each
// run's measured period into blocks of whole seconds, each holding enough samples to resolve
// the percentile, takes the figure of every block, and asks a one-sided Mann-Whitney rank test
// whether the candidate's blocks are worse than the baseline's. Ranks ignore how far out a
// burst lies, so a few bursty seconds do not decide; a real regression (every message slower)
// moves most blocks and is found. A change is a regression only when it exceeds the tolerance
// AND the rank test's p-value is below Alpha. Repeated runs pool their blocks: the test then
// also sees how runs differ from one another.

// Alpha is the rank test's one-sided significance level (default of --alpha).
const Alpha = 0.001

// MaxSteal is the default of --max-steal: a second in which the host took more than this
// percentage of the machine's CPU for other guests (results.NoisyStealPct) is left out of the
// rank test on either side. When such bursts fell on one side's runs only, identical runs
// "regressed" by 170-510 %: the host, not the change, made those seconds. Runs that did not
// record the host's steal (older results, merged runs, machines without /proc/stat) keep
// every second.
const MaxSteal = results.NoisyStealPct

// minBlocks: fewer blocks than this give no spread worth the name; the noise is then unknown
// and the tolerance alone judges.
const minBlocks = 4

// blockSamples: a block holds at least this many times the samples its percentile needs.
const blockSamples = 10

// blocks returns the cell's figure for m in each block of its measured period: latency from
// the interval log (hlog/), leaving out the seconds in which the host stole more than
// maxSteal percent of the CPU (how many: stolen, of seconds), rates from the per-second
// timeline. unstolen is how many blocks there would have been with every second kept.
func blocks(run *results.Run, cellID string, m Metric, maxSteal float64) (out []float64, stolen, seconds, unstolen int) {
	c := run.Cell(cellID)
	if c == nil {
		return nil, 0, 0, 0
	}
	if m.Kind == "" {
		out = rateBlocks(c, m)
		return out, 0, 0, len(out)
	}
	rel := c.Hlog[m.Kind]
	if rel == "" {
		return nil, 0, 0, 0
	}
	need := int64(1)
	if m.Q > 0 {
		need = blockSamples * int64(math.Ceil(1/(1-m.Q)-1e-6))
	}
	acc := hist.New()
	var all int64
	// One second in memory at a time (results.EachHlog): a long run has thousands of them.
	err := results.EachHlog(filepath.Join(run.Dir, filepath.FromSlash(rel)), func(iv results.Interval) error {
		seconds++
		if all += iv.H.Count(); all >= need {
			unstolen, all = unstolen+1, 0
		}
		if hostStole(c.HostSteal, iv, maxSteal) {
			stolen++
			return nil
		}
		acc.Merge(iv.H)
		if acc.Count() >= need {
			out = append(out, stat(acc, m))
			acc = hist.New()
		}
		return nil
	})
	if err != nil {
		return nil, 0, 0, 0
	}
	return out, stolen, seconds, unstolen
}

// hostStole reports whether the host stole more than maxSteal percent of the CPU in a second
// overlapping the interval (steal seconds and intervals are the same seconds, read a few µs
// apart).
func hostStole(steal []results.StealSecond, iv results.Interval, maxSteal float64) bool {
	const slack = 0.05 // s
	i := sort.Search(len(steal), func(i int) bool { return steal[i].Start+steal[i].Length > iv.Start+slack })
	for ; i < len(steal) && steal[i].Start < iv.Start+iv.Length-slack; i++ {
		if steal[i].Pct > maxSteal {
			return true
		}
	}
	return false
}

// stat is m's statistic of h in µs.
func stat(h *hist.Hist, m Metric) float64 {
	v := h.View()
	switch m.Stat {
	case "max":
		return v.Max / 1e3
	case "min":
		return v.Min / 1e3
	case "mean":
		return v.Mean / 1e3
	}
	return v.Quantile(m.Q*100) / 1e3
}

// rateBlocks are the per-second rates of the cell's measured period (warm-up and drain out).
func rateBlocks(c *results.Cell, m Metric) []float64 {
	step := c.TimelineStepS
	if step <= 0 {
		step = 1
	}
	var out []float64
	for _, p := range c.Timeline {
		if p.T < c.WarmupS || p.T+step > c.WarmupS+c.DurationS+1e-9 {
			continue
		}
		switch m.Stat {
		case "sender_rate", "ack_rate":
			out = append(out, float64(p.Sent)/step)
		case "receiver_rate":
			out = append(out, float64(p.Received)/step)
		default:
			return nil // bytes rates: no per-second byte counts
		}
	}
	return out
}

// median of xs (which it sorts).
func median(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// rankTest is the one-sided Mann-Whitney U test that b's values are larger than a's (normal
// approximation with the tie correction; the block counts here are tens). It returns the
// p-value; NaN when either side has fewer than minBlocks values or when even complete
// separation could not reach alpha (5 blocks against 5: p >= 1/252): the data cannot tell.
func rankTest(a, b []float64, alpha float64) float64 {
	n1, n2 := float64(len(a)), float64(len(b))
	if len(a) < minBlocks || len(b) < minBlocks || minP(len(a), len(b)) >= alpha {
		return math.NaN()
	}
	type v struct {
		x    float64
		side int
	}
	all := make([]v, 0, len(a)+len(b))
	for _, x := range a {
		all = append(all, v{x, 0})
	}
	for _, x := range b {
		all = append(all, v{x, 1})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].x < all[j].x })
	var rankB, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].x == all[i].x {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1 … j
		t := float64(j - i)
		ties += t*t*t - t
		for k := i; k < j; k++ {
			if all[k].side == 1 {
				rankB += rank
			}
		}
		i = j
	}
	u := rankB - n2*(n2+1)/2 // how often a b value exceeds an a value
	n := n1 + n2
	sigma := math.Sqrt(n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1))))
	if sigma == 0 {
		return 1
	}
	z := (u - n1*n2/2 - 0.5) / sigma // continuity correction
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// minP is the smallest one-sided p-value a rank test of n1 against n2 values can give:
// 1 / C(n1+n2, n1), the chance of complete separation.
func minP(n1, n2 int) float64 {
	lg, _ := math.Lgamma(float64(n1 + n2 + 1))
	l1, _ := math.Lgamma(float64(n1 + 1))
	l2, _ := math.Lgamma(float64(n2 + 1))
	return math.Exp(-(lg - l1 - l2))
}

// detectable is the smallest relative worsening the rank test would find at level alpha if
// every block of the baseline moved by it: blocks times 1+f against the blocks themselves
// (values are negated for higher-is-better metrics, so a larger factor is always worse).
// The candidate's own spread and run-to-run shifts only make it larger: a lower bound, which
// tells a user whose change hid in the noise how long or how often to run. +Inf beyond a
// 1000-fold change (blocks spread over orders of magnitude), NaN without a test.
func detectable(blocks []float64, alpha float64) float64 {
	found := func(f float64) bool {
		moved := make([]float64, len(blocks))
		for i, x := range blocks {
			moved[i] = x * (1 + f)
		}
		p := rankTest(blocks, moved, alpha)
		return p == p && p < alpha
	}
	if len(blocks) < minBlocks || minP(len(blocks), len(blocks)) >= alpha {
		return math.NaN()
	}
	lo, hi := 0.0, 0.01
	for !found(hi) {
		if hi > 1000 {
			return math.Inf(1)
		}
		lo, hi = hi, hi*2
	}
	for i := 0; i < 30 && hi-lo > 1e-4*hi; i++ {
		if mid := (lo + hi) / 2; found(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
