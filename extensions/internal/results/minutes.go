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

// EachHlog reads an interval log as the runner writes it (hlog/<cell>.<kind>.hlog): one V2
// compressed histogram per line after the comment and header lines, handed to fn one at a
// time. A decoded second is a full histogram (~270 KB at 1 ns .. 1 h, 3 digits), so a reader
// that kept them all would need memory in proportion to the run's length: ~160 MB for 600 s
// of one kind, and a 10-minute soak peaked at 518 MB when the report read its logs that way.
func EachHlog(path string, fn func(Interval) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '"' {
			continue
		}
		parts := strings.SplitN(line, ",", 4)
		if len(parts) != 4 {
			return fmt.Errorf("%s:%d: want start,length,max,histogram", path, n)
		}
		start, err1 := strconv.ParseFloat(parts[0], 64)
		length, err2 := strconv.ParseFloat(parts[1], 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%s:%d: bad start or length", path, n)
		}
		h, err := hist.DecodeV2([]byte(parts[3]))
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if err := fn(Interval{Start: start, Length: length, H: h}); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Minutes merges the intervals of each minute (by start, from the first interval's), one
// interval at a time, and gives each minute's p95, as a single run's percentiles are given
// (hist.Snapshot).
type Minutes struct {
	started bool
	first   float64
	minute  int
	acc     *hist.Hist
	out     []MinuteStat
}

// Add takes the next interval of the log (in the log's order).
func (m *Minutes) Add(iv Interval) {
	if !m.started {
		m.started, m.first, m.minute = true, iv.Start, -1
	}
	k := int(math.Floor((iv.Start - m.first) / 60))
	if k != m.minute {
		m.flush()
		m.acc, m.minute = hist.New(), k
	}
	m.acc.Merge(iv.H)
}

func (m *Minutes) flush() {
	if m.acc != nil && m.acc.Count() > 0 {
		st := m.acc.Snapshot()
		m.out = append(m.out, MinuteStat{T: m.first + 60*float64(m.minute), Count: st.Count, P95: st.P["p95"]})
	}
	m.acc = nil
}

// Stats ends the last minute and returns every minute's figures (nil when no interval came).
func (m *Minutes) Stats() []MinuteStat {
	m.flush()
	return m.out
}

// MinutesOfHlog reads an interval log's p95 of each minute, one second in memory at a time.
func MinutesOfHlog(path string) ([]MinuteStat, error) {
	var m Minutes
	err := EachHlog(path, func(iv Interval) error { m.Add(iv); return nil })
	return m.Stats(), err
}
