package scenario

import "time"

// maxRunLength bounds the cells' warm-up, duration and drain summed over the run (30 days,
// like each value): every value may be within its bound and the run still absurd, and the
// plan and the k8s manifests compute with the sum.
const maxRunLength = maxDurationValue

// checkRunLength refuses a run whose cells last longer than maxRunLength together. The sum
// is a float: a cell counted in messages may last decades, and enough of them would wrap
// an int64 (one cell's three values cannot).
func (d *decoder) checkRunLength(s *Scenario) {
	var total float64
	for _, c := range s.Cells {
		total += float64(c.Warmup + c.Duration + c.Drain)
	}
	if total <= float64(maxRunLength) {
		return
	}
	at := d.keys["matrix"]
	if at == nil {
		at = d.where("matrix")
	}
	d.add(at, "matrix", "the cells last %.1f days together (warm-up, duration and drain of each), more than the %s (30 days) limit of a run",
		total/float64(24*time.Hour), fmtDuration(maxRunLength))
}
