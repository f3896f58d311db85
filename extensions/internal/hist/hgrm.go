package hist

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// hgrmTicks is HdrHistogram's default percentile resolution: 5 reporting ticks per half
// distance to 100% (rows at 0, 10, 20, …, 50, 55, 60, …, 75, 77.5, …), as its Java
// outputPercentileDistribution writes them.
const hgrmTicks = 5

// WriteHgrm writes the distribution in HdrHistogram's percentile distribution text format
// (.hgrm: Value, Percentile, TotalCount, 1/(1-Percentile), then the Mean / StdDeviation /
// Max / Total count footer), byte-compatible with the Java implementation's output, so the
// HdrHistogram plotter and other tools read it. Values are in microseconds (3 decimals, i.e.
// nanosecond resolution).
func (h *Hist) WriteHgrm(w io.Writer) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)")
	if h.h.TotalCount() > 0 {
		for _, b := range h.h.CumulativeDistributionWithTicks(hgrmTicks) {
			q := b.Quantile / 100
			if b.Quantile >= 100 {
				fmt.Fprintf(bw, "%12.3f %2.12f %10d\n", us(b.ValueAt), q, b.Count)
				continue
			}
			fmt.Fprintf(bw, "%12.3f %2.12f %10d %14.2f\n", us(b.ValueAt), q, b.Count, 1/(1-q))
		}
	}
	mean, sd := 0.0, 0.0
	if h.h.TotalCount() > 0 {
		mean, sd = h.h.Mean()/1e3, h.h.StdDev()/1e3
	}
	fmt.Fprintf(bw, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", mean, sd)
	fmt.Fprintf(bw, "#[Max     = %12.3f, Total count    = %12d]\n", us(h.h.Max()), h.h.TotalCount())
	fmt.Fprintf(bw, "#[Buckets = %12d, SubBuckets     = %12d]\n", bucketCount(h), subBucketCount(h))
	return bw.Flush()
}

// Point is one row of a percentile distribution: the value (µs) at or below which a
// fraction Q (0…1) of all samples lie, and how many samples that is.
type Point struct {
	Value float64
	Q     float64
	Count int64
}

// Distribution is a parsed .hgrm file.
type Distribution struct {
	Points             []Point // ascending; the final Q=1 row included
	Mean, StdDev, Max  float64
	TotalCount         int64
	Buckets, SubBucket int64
}

// MaxHgrmRows bounds the rows ParseHgrm keeps: a .hgrm from any HdrHistogram has a few
// hundred, and a file from a stranger must not fill memory with tiny rows.
const MaxHgrmRows = 1 << 16

// ParseHgrm reads a .hgrm percentile distribution (as written by WriteHgrm or by any
// HdrHistogram implementation): rows of numbers, a header line and #[…] footer lines. Its
// errors give the line and byte offset, never the text: the file may come from a stranger.
func ParseHgrm(r io.Reader) (Distribution, error) {
	var d Distribution
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var at, next int64 // the current line's byte offset, the next one's
	sc.Split(func(data []byte, eof bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanLines(data, eof)
		if tok != nil {
			at, next = next, next+int64(adv)
		}
		return adv, tok, err
	})
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		switch {
		case s == "" || strings.HasPrefix(s, "Value"):
			continue
		case strings.HasPrefix(s, "#["):
			parseFooter(s, &d)
			continue
		}
		f := strings.Fields(s)
		if len(f) < 3 {
			return d, fmt.Errorf("line %d (byte offset %d): want Value Percentile TotalCount", line, at)
		}
		v, err1 := strconv.ParseFloat(f[0], 64)
		q, err2 := strconv.ParseFloat(f[1], 64)
		n, err3 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || !(q >= 0 && q <= 1) || math.IsNaN(v) || math.IsInf(v, 0) || n < 0 {
			return d, fmt.Errorf("line %d (byte offset %d): not a percentile row", line, at)
		}
		if len(d.Points) == MaxHgrmRows {
			return d, fmt.Errorf("line %d (byte offset %d): more than %d percentile rows", line, at, MaxHgrmRows)
		}
		d.Points = append(d.Points, Point{Value: v, Q: q, Count: n})
	}
	if err := sc.Err(); err != nil {
		return d, fmt.Errorf("line %d (byte offset %d): %w", line+1, next, err)
	}
	if d.TotalCount == 0 && len(d.Points) > 0 {
		d.TotalCount = d.Points[len(d.Points)-1].Count
	}
	return d, nil
}

// ValueAt returns the smallest recorded value at or above quantile q (0…1), as
// HdrHistogram's ValueAtQuantile would from the rows present (exact at the rows, the next
// row's value in between).
func (d Distribution) ValueAt(q float64) float64 {
	for _, p := range d.Points {
		if p.Q >= q-1e-12 {
			return p.Value
		}
	}
	if len(d.Points) == 0 {
		return math.NaN()
	}
	return d.Points[len(d.Points)-1].Value
}

// parseFooter reads "#[Mean    =  1.234, StdDeviation   =  5.678]" style lines.
func parseFooter(s string, d *Distribution) {
	s = strings.Trim(s, "#[]")
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Mean":
			d.Mean = x
		case "StdDeviation":
			d.StdDev = x
		case "Max":
			d.Max = x
		case "Total count":
			d.TotalCount = int64(x)
		case "Buckets":
			d.Buckets = int64(x)
		case "SubBuckets":
			d.SubBucket = int64(x)
		}
	}
}

// subBucketCount and bucketCount mirror HdrHistogram's layout (the .hgrm footer reports them;
// the Go library keeps them unexported).
func subBucketCount(h *Hist) int64 {
	return int64(1) << int(math.Ceil(math.Log2(2*math.Pow10(int(h.h.SignificantFigures())))))
}

func bucketCount(h *Hist) int64 {
	unit := max(int(math.Floor(math.Log2(float64(h.h.LowestTrackableValue())))), 0)
	smallestUntrackable, n := subBucketCount(h)<<unit, int64(1)
	for smallestUntrackable < h.h.HighestTrackableValue() {
		smallestUntrackable <<= 1
		n++
	}
	return n
}
