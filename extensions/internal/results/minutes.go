package results

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// MinuteStat is one minute of a cell's interval log: the p95 of every value recorded in it.
// SoftwareMill's replicated-queue study reports latency this way (a p95 per minute), and a
// run-wide percentile hides a minute that went bad.
type MinuteStat struct {
	// T is where the minute starts, in seconds since the cell started (the timeline's axis):
	// minutes are counted from the first second that recorded a value.
	T     float64 `json:"t"`
	Count int64   `json:"count"` // values in the minute (a last, partial minute has fewer)
	P95   float64 `json:"p95"`   // µs
}

// Interval is one line of an HdrHistogram interval log: its start and length in seconds since
// the log's StartTime and its histogram.
type Interval struct {
	Start, Length float64
	H             *hist.Hist
}

// ReadHlog reads an interval log as the runner writes it (hlog/<cell>.<kind>.hlog): one V2
// compressed histogram per line after the comment and header lines.
func ReadHlog(path string) ([]Interval, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Interval
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '"' {
			continue
		}
		parts := strings.SplitN(line, ",", 4)
		if len(parts) != 4 {
			return nil, fmt.Errorf("%s:%d: want start,length,max,histogram", path, n)
		}
		start, err1 := strconv.ParseFloat(parts[0], 64)
		length, err2 := strconv.ParseFloat(parts[1], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: bad start or length", path, n)
		}
		h, err := hist.DecodeV2([]byte(parts[3]))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, Interval{Start: start, Length: length, H: h})
	}
	return out, sc.Err()
}

// ByMinute merges the intervals of each minute (by start, from the first interval's) and
// gives each minute's p95, as a single run's percentiles are given (hist.Snapshot).
func ByMinute(ivs []Interval) []MinuteStat {
	if len(ivs) == 0 {
		return nil
	}
	first := ivs[0].Start
	var out []MinuteStat
	var acc *hist.Hist
	minute := -1
	flush := func() {
		if acc != nil && acc.Count() > 0 {
			st := acc.Snapshot()
			out = append(out, MinuteStat{T: first + 60*float64(minute), Count: st.Count, P95: st.P["p95"]})
		}
	}
	for _, iv := range ivs {
		m := int(math.Floor((iv.Start - first) / 60))
		if m != minute {
			flush()
			acc, minute = hist.New(), m
		}
		acc.Merge(iv.H)
	}
	flush()
	return out
}
