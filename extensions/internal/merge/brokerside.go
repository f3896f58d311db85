package merge

import "github.com/mqbench/xk6-mqbench/internal/results"

// mergeBrokerSide joins the runners' broker_side of one cell. Every runner has its own
// destination, so the brokers' backlogs (and mqbench's own) add up second by second; CPU and
// memory are the broker process's, which every runner read, so the merged point takes the
// highest reading. Points are aligned by index: the runners' cells start together and sample
// on the same step. nil when no runner read the broker.
func mergeBrokerSide(parts []*results.BrokerSide) *results.BrokerSide {
	var out *results.BrokerSide
	for _, b := range parts {
		if b == nil {
			continue
		}
		if out == nil {
			out = &results.BrokerSide{StepS: b.StepS, Points: []results.BrokerPoint{}}
		}
		out.StepS = max(out.StepS, b.StepS)
		out.Samples += b.Samples
		out.Errors += b.Errors
		if out.FirstError == "" {
			out.FirstError = b.FirstError
		}
		for i, p := range b.Points {
			if i == len(out.Points) {
				out.Points = append(out.Points, results.BrokerPoint{T: p.T})
			}
			q := &out.Points[i]
			q.Backlog = sumPtr(q.Backlog, p.Backlog)
			q.ClientBacklog = sumPtr(q.ClientBacklog, p.ClientBacklog)
			q.CPUPercent = maxPtr(q.CPUPercent, p.CPUPercent)
			q.MemoryBytes = maxPtr(q.MemoryBytes, p.MemoryBytes)
		}
		// A runner whose points were not kept still counts through its maxima.
		out.BacklogMax = sumPtr(out.BacklogMax, b.BacklogMax)
		out.CPUPercentMax = maxPtr(out.CPUPercentMax, b.CPUPercentMax)
		out.MemoryBytesMax = maxPtr(out.MemoryBytesMax, b.MemoryBytesMax)
	}
	if out == nil {
		return nil
	}
	// With points, the merged backlog's peak is the highest summed second, not the sum of
	// peaks that need not coincide.
	var peak *int64
	for _, p := range out.Points {
		peak = maxPtr(peak, p.Backlog)
	}
	if peak != nil {
		out.BacklogMax = peak
	}
	return out
}

func sumPtr(a, b *int64) *int64 {
	switch {
	case b == nil:
		return a
	case a == nil:
		v := *b
		return &v
	}
	v := *a + *b
	return &v
}

func maxPtr[T int64 | float64](a, b *T) *T {
	if b == nil || (a != nil && *a >= *b) {
		return a
	}
	v := *b
	return &v
}
