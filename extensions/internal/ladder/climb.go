// Package ladder is the rate ladder of `k6 x mqbench ladder` (and so of make bench): the
// highest rate each probe holds, on a list of rates climbed one rung at a time, every probe
// measured at a rung before the next so all see the same machine noise. A rule stops at its
// first rate not held (a pass above a failure would be luck); the climb ends when every rule
// has stopped or at the top rung (then the figure means "at least").
package ladder

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Probe measures one tool at one rate and judges the run by its rules.
type Probe interface {
	Rules() int
	// Measure runs at rate (batch messages an iteration); on says which of its rules still
	// climb (a stopped one need not be judged). It returns, per rule, whether it held, and
	// the probe's column of the row.
	Measure(rate, batch int, on []bool) (held []bool, line string, err error)
}

// Best is a rule's outcome: the highest rate held and its batch (0 when none held).
type Best struct{ Rate, Batch int }

// Batch is the batch at a rate: rate / perBatch above perBatch msg/s, else 1 (it bounds k6's
// iterations a second).
func Batch(rate, perBatch int) int {
	if rate > perBatch {
		return rate / perBatch
	}
	return 1
}

// Climb climbs rates with probes, batchOf(rate) messages an iteration. Each row (rate, batch, one column per probe, "-" when the
// probe did not run) is printed to out with format (a fmt format, no row when empty).
// It returns the best of each rule, in probe order.
func Climb(rates []int, batchOf func(rate int) int, probes []Probe, format string, out io.Writer) ([]Best, error) {
	var on []bool
	for _, p := range probes {
		for range p.Rules() {
			on = append(on, true)
		}
	}
	best := make([]Best, len(on))
	for _, rate := range rates {
		batch := batchOf(rate)
		cols := []any{strconv.Itoa(rate), strconv.Itoa(batch)}
		first := 0
		for _, p := range probes {
			n := p.Rules()
			line := "-"
			if anyTrue(on[first : first+n]) {
				held, l, err := p.Measure(rate, batch, append([]bool(nil), on[first:first+n]...))
				if err != nil {
					return best, err
				}
				line = l
				for r := first; r < first+n; r++ {
					if on[r] && r-first < len(held) && held[r-first] {
						best[r] = Best{rate, batch}
					} else {
						on[r] = false
					}
				}
				if !anyTrue(held) {
					line += "  (not held)"
				}
			}
			cols = append(cols, line)
			first += n
		}
		if format != "" {
			fmt.Fprintf(out, format+"\n", cols...)
		}
		if !anyTrue(on) {
			break
		}
	}
	return best, nil
}

// ResultLine is the ladder's machine-readable outcome: "#ladder", "best", the rules' rates,
// "batch", their batches ("-" when none held), tab-separated, the lists space-separated.
func ResultLine(best []Best) string {
	rates, batches := make([]string, len(best)), make([]string, len(best))
	for i, b := range best {
		rates[i], batches[i] = strconv.Itoa(b.Rate), "-"
		if b.Rate > 0 {
			batches[i] = strconv.Itoa(b.Batch)
		}
	}
	return "#ladder\tbest\t" + strings.Join(rates, " ") + "\tbatch\t" + strings.Join(batches, " ")
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}
