package verdict

import "time"

// A counter's rate is judged per cell, as every mqbench threshold is: the cell's count over
// the cell's measured time. k6 divides a counter by the whole test run's duration instead
// (every cell, warm-ups, drains and the gaps between cells), so a 300 msg/s cell among others
// measured 118/s there.

// Measurer is a Source that knows each cell's measured time: from the end of its warm-up to
// the end of its sends (its `duration`; the drain is not in it), as far as the cell got.
// The counted messages are those sent in that window (received: by the end of the drain).
type Measurer interface {
	// MeasuredTime is how much of the cell's measured window has passed; ok false before
	// the window opened (the cell did not start, or is still warming up).
	MeasuredTime(cell int) (d time.Duration, ok bool)
}

// counterRate is the selected cells' count per second of their measured time: sum over sum
// for several cells, of the cells whose count and measured time are both known. A source that
// cannot tell a cell's measured time falls back to k6's rule: the count over the test run so
// far (elapsed).
func counterRate(src Source, metric string, cells []int, elapsed time.Duration) (float64, bool) {
	m, per := src.(Measurer)
	var sum float64
	var span time.Duration
	known := false
	for _, c := range cells {
		v, ok := src.Count(c, metric)
		if !ok {
			continue
		}
		if per {
			d, ok := m.MeasuredTime(c)
			if !ok || d <= 0 {
				continue // warming up, or never started: nothing measured yet
			}
			span += d
		}
		sum, known = sum+v, true
	}
	if !per {
		if elapsed <= 0 {
			return 0, known
		}
		return sum / elapsed.Seconds(), known
	}
	if !known || span <= 0 {
		return 0, false
	}
	return sum / span.Seconds(), true
}
