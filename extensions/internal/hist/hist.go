// Package hist keeps a full latency distribution (HdrHistogram, 3 significant digits) so the
// summary can report percentiles to p99.9999 and max without keeping raw samples, thresholds
// can be evaluated on exact data, and distributions from several processes merge exactly.
package hist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// highest trackable value: one hour in ns. Anything longer is clamped (and still counted).
const highestNs = int64(3600e9)

// Digits is the histogram's precision: percentiles are exact to 3 significant digits (a
// value is reported as the top of its bucket, at most 0.1% above the recorded one). Count,
// min, max and mean are exact.
const Digits = 3

// Hist is a concurrency-safe HdrHistogram of durations in nanoseconds, with exact count,
// min, max and sum kept beside it, and optionally a second histogram of the values recorded
// since the last TakeInterval (per-second aggregates and the interval log).
type Hist struct {
	mu       sync.Mutex
	h        *hdr.Histogram
	min, max int64
	sum      float64

	iv, spare    *hdr.Histogram // nil unless intervals are enabled
	ivMin, ivMax int64
	ivSum        float64
	nat          *nativeCounts // the interval in native buckets; nil unless enabled (native.go)
}

// New returns an empty histogram covering 1 ns … 1 h at 3 significant digits.
func New() *Hist { return &Hist{h: newHdr()} }

func newHdr() *hdr.Histogram { return hdr.New(1, highestNs, Digits) }

// Record adds one duration. Negative values (clock misuse) are clamped to 0 so they remain
// visible as a suspicious min rather than vanishing.
func (h *Hist) Record(ns int64) {
	if ns < 0 {
		ns = 0
	} else if ns > highestNs {
		ns = highestNs
	}
	h.mu.Lock()
	record(h.h, &h.min, &h.max, &h.sum, ns)
	if h.iv != nil {
		record(h.iv, &h.ivMin, &h.ivMax, &h.ivSum, ns)
		if h.nat != nil {
			h.nat.add(ns)
		}
	}
	h.mu.Unlock()
}

// record adds ns to one histogram and its exact extremes and sum.
func record(hg *hdr.Histogram, lo, hi *int64, sum *float64, ns int64) {
	if hg.TotalCount() == 0 || ns < *lo {
		*lo = ns
	}
	*hi = max(*hi, ns)
	*sum += float64(ns)
	_ = hg.RecordValue(ns)
}

// Percentile is one reported percentile. Its three spellings come from here only: Key in
// summary.json ("p99_9"), Label in tables ("p99.9"), K6 in threshold expressions ("p(99.9)").
type Percentile struct {
	Key string
	Q   float64 // in percent
}

// Label is how tables and charts head the percentile: p99.9.
func (p Percentile) Label() string { return "p" + strconv.FormatFloat(p.Q, 'f', -1, 64) }

// K6 is the percentile in k6's threshold syntax: p(99.9).
func (p Percentile) K6() string { return "p(" + strconv.FormatFloat(p.Q, 'f', -1, 64) + ")" }

// Needs is the fewest samples that resolve the percentile: with fewer than 1/(1-q) samples
// the value reported is the maximum of too few samples, not a tail estimate (p99.99 needs
// 10,000).
func (p Percentile) Needs() int64 { return int64(math.Ceil(1/(1-p.Q/100) - 1e-6)) }

// Percentiles reported everywhere: the tail is where SLAs break.
var Percentiles = []Percentile{
	{"p50", 50}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p99_9", 99.9}, {"p99_99", 99.99},
	{"p99_999", 99.999}, {"p99_9999", 99.9999},
}

// StatFields are the statistics of every latency distribution in summary.json (Stats' JSON
// keys), with what each is: one list for the writers' documentation (docs/metrics.md).
var StatFields = []struct{ Key, Meaning string }{
	{"count", "values recorded (after the warm-up)"},
	{"min", "the smallest value, exact"},
	{"mean", "the arithmetic mean, exact"},
	{"stddev", "the standard deviation around the mean, from the histogram's buckets (3 significant digits): a mean says little without it"},
	{"max", "the largest value, exact"},
	{"percentiles", "the values at each percentile below, from the histogram (3 significant digits): pN is the smallest value with at least N % of the values at or below it (nearest rank, as Prometheus's histogram_quantile ranks)"},
	{"unresolved", "the percentile keys the count cannot resolve (their value is the maximum of too few samples)"},
}

// Stats is a snapshot in microseconds.
type Stats struct {
	Count int64   `json:"count"`
	Min   float64 `json:"min"`
	Mean  float64 `json:"mean"`
	// StdDev is the population standard deviation, computed over the histogram's buckets
	// (each value counted at its bucket's middle: 3 significant digits, like the percentiles).
	StdDev float64            `json:"stddev"`
	Max    float64            `json:"max"`
	P      map[string]float64 `json:"percentiles"`
	// Unresolved lists the percentile keys the sample count cannot resolve (Needs): their
	// values are reported but are the maximum of too few samples.
	Unresolved []string `json:"unresolved,omitempty"`
}

// Resolved reports whether the count resolves the percentile key (unknown keys: true); from
// Count, so summaries written without Unresolved read the same.
func (s Stats) Resolved(key string) bool {
	i := slices.IndexFunc(Percentiles, func(p Percentile) bool { return p.Key == key })
	return i < 0 || s.Count == 0 || s.Count >= Percentiles[i].Needs()
}

// MarkUnresolved sets Unresolved from Count.
func (s *Stats) MarkUnresolved() {
	s.Unresolved = nil
	for _, p := range Percentiles {
		if !s.Resolved(p.Key) {
			s.Unresolved = append(s.Unresolved, p.Key)
		}
	}
}

// Snapshot returns the distribution in µs (3 decimals kept, i.e. ns resolution).
func (h *Hist) Snapshot() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := Stats{Count: h.h.TotalCount(), P: make(map[string]float64, len(Percentiles))}
	if s.Count == 0 {
		return s
	}
	s.Min = us(h.min)
	s.Max = us(h.max)
	s.Mean = h.sum / float64(s.Count) / 1e3
	s.StdDev = math.Round(h.h.StdDev()) / 1e3
	for _, p := range Percentiles {
		s.P[p.Key] = us(h.atQuantile(p.Q))
	}
	s.MarkUnresolved()
	return s
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

// atQuantile is the value at q percent: the top of its bucket, but never above the exact max
// (a bucket's top can lie past the largest value recorded in it). Callers hold mu.
func (h *Hist) atQuantile(q float64) int64 { return min(ValueAt(h.h, q), h.max) }

// Count is the number of recorded values.
func (h *Hist) Count() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.h.TotalCount()
}

// EncodeV2 returns the histogram in HdrHistogram's V2 compressed encoding, base64 (the form
// Java's Histogram.fromString / decodeFromCompressedByteBuffer and HdrHistogram_c read).
func (h *Hist) EncodeV2() ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.h.Encode(hdr.V2CompressedEncodingCookieBase)
}

// DecodeV2 reads what EncodeV2 (or any V2 compressed writer) produced. Min, max and mean are
// then those of the buckets (exact to 3 significant digits), the recorded values being gone.
func DecodeV2(b []byte) (*Hist, error) {
	if err := checkPrecision(b); err != nil {
		return nil, err
	}
	d, err := hdr.Decode(b)
	if err != nil {
		return nil, err
	}
	h := New()
	if dropped := h.h.Merge(d); dropped > 0 {
		return nil, fmt.Errorf("histogram holds %d values outside 1ns..1h", dropped)
	}
	if n := d.TotalCount(); n > 0 {
		h.min, h.max, h.sum = d.Min(), d.Max(), d.Mean()*float64(n)
	}
	return h, nil
}

// checkPrecision refuses an encoding of more significant digits than ours before it is
// decoded: the counts array a header asks for is allocated whole (5 digits over 1 .. 2^63 is
// 49 MB), and an .hdr file may come from a stranger.
func checkPrecision(b []byte) error {
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
	n, err := base64.StdEncoding.Decode(raw, b)
	if err != nil {
		return err
	}
	if raw = raw[:n]; len(raw) < 8 {
		return errors.New("encoded histogram too short")
	}
	clen := int64(binary.BigEndian.Uint32(raw[4:8]))
	if clen > int64(len(raw)-8) {
		return errors.New("encoded histogram truncated")
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8 : 8+clen]))
	if err != nil {
		return err
	}
	defer z.Close()
	head := make([]byte, 40) // cookie, payload length, offset, digits, lowest, highest, ratio
	if _, err := io.ReadFull(z, head); err != nil {
		return errors.New("encoded histogram truncated")
	}
	if d := int32(binary.BigEndian.Uint32(head[12:16])); d < 1 || d > Digits {
		return fmt.Errorf("a histogram of %d significant digits; at most %d are read", d, Digits)
	}
	return nil
}

// Merge adds every value of o to h (exactly: same geometry).
func (h *Hist) Merge(o *Hist) {
	if h == o {
		return
	}
	o.mu.Lock()
	c := hdr.Import(o.h.Export())
	omin, omax, osum, on := o.min, o.max, o.sum, o.h.TotalCount()
	o.mu.Unlock()
	if on == 0 {
		return
	}
	h.mu.Lock()
	if h.h.TotalCount() == 0 || omin < h.min {
		h.min = omin
	}
	h.max = max(h.max, omax)
	h.sum += osum
	h.h.Merge(c)
	h.mu.Unlock()
}

// SetExact sets the exact min, max and sum (ns) of what h holds, when it was rebuilt from
// encodings that carry only buckets (a distributed run's merge knows each runner's exact
// figures): Snapshot and View then report them, and clamp percentiles to the exact max.
func (h *Hist) SetExact(minNs, maxNs int64, sumNs float64) {
	h.mu.Lock()
	h.min, h.max, h.sum = minNs, maxNs, sumNs
	h.mu.Unlock()
}

// View is a read-only look at a distribution for threshold evaluation, in nanoseconds.
type View struct {
	Count          int64
	Min, Max, Mean float64
	h              *hdr.Histogram
}

// Quantile returns the value at q percent (0 < q < 100), the top of its bucket.
func (v View) Quantile(q float64) float64 {
	if v.Count == 0 {
		return 0
	}
	return min(float64(ValueAt(v.h, q)), v.Max)
}

// View snapshots h for threshold evaluation (a copy: h goes on recording).
func (h *Hist) View() View {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := View{Count: h.h.TotalCount()}
	if v.Count > 0 {
		v.Min, v.Max, v.Mean = float64(h.min), float64(h.max), h.sum/float64(v.Count)
		v.h = hdr.Import(h.h.Export())
	}
	return v
}

// Buckets lists the non-empty buckets as [highest equivalent value (ns), count], ascending:
// the histogram itself, for comparing two implementations' decoding bucket for bucket.
func (h *Hist) Buckets() [][2]int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out [][2]int64
	for _, b := range h.h.Distribution() {
		if b.Count > 0 {
			out = append(out, [2]int64{b.To, b.Count})
		}
	}
	return out
}

// EnableIntervals starts keeping the values recorded since the last TakeInterval.
func (h *Hist) EnableIntervals() {
	h.mu.Lock()
	if h.iv == nil {
		h.iv, h.spare = newHdr(), newHdr()
	}
	h.mu.Unlock()
}

// DisableIntervals frees the interval histograms (a cell that has ended).
func (h *Hist) DisableIntervals() {
	h.mu.Lock()
	h.iv, h.spare, h.nat = nil, nil, nil
	h.mu.Unlock()
}

// Interval is what was recorded between two TakeInterval calls (ns).
type Interval struct {
	Count          int64
	Min, Max, Mean float64
	// Quantile values for IntervalQuantiles, in that order.
	Q []float64
	// Encoded is the interval's histogram in V2 compressed form (base64), for an interval
	// log; nil when Count is 0 or encoding was not asked for.
	Encoded []byte
	// Native is the interval in native buckets; nil unless EnableNative was called.
	Native *Native
}

// IntervalQuantiles are the percentiles of each per-second aggregate.
var IntervalQuantiles = []float64{50, 90, 95, 99, 99.9, 99.99}

// IntervalStats are the statistics of a per-second aggregate as the stat tag names them:
// count, min, mean, max, then IntervalQuantiles' labels (p50 … p99.99).
func IntervalStats() []string {
	out := []string{"count", "min", "mean", "max"}
	for _, q := range IntervalQuantiles {
		out = append(out, Percentile{Q: q}.Label())
	}
	return out
}

// TakeInterval returns the values recorded since the previous call and starts a new
// interval. One caller at a time (the cell's consumer VU). The heavy work (quantiles,
// encoding) runs outside the lock, so recording is never held up by it.
func (h *Hist) TakeInterval(encode bool) Interval {
	h.mu.Lock()
	cur := h.iv
	if cur == nil || h.spare == nil {
		h.mu.Unlock()
		return Interval{}
	}
	h.iv, h.spare = h.spare, nil
	in := Interval{Count: cur.TotalCount(), Min: float64(h.ivMin), Max: float64(h.ivMax)}
	if in.Count > 0 {
		in.Mean = h.ivSum / float64(in.Count)
	}
	if h.nat != nil {
		in.Native = h.nat.take()
	}
	h.ivMin, h.ivMax, h.ivSum = 0, 0, 0
	h.mu.Unlock()

	if in.Count > 0 {
		in.Q = make([]float64, len(IntervalQuantiles))
		for i, q := range IntervalQuantiles {
			in.Q[i] = min(float64(ValueAt(cur, q)), in.Max)
		}
		if encode {
			in.Encoded, _ = cur.Encode(hdr.V2CompressedEncodingCookieBase)
		}
	}
	cur.Reset()
	h.mu.Lock()
	if h.iv != nil { // not disabled meanwhile
		h.spare = cur
	}
	h.mu.Unlock()
	return in
}

// MaxMs is an interval's max in ms, as the interval log's third column wants it.
func (in Interval) MaxMs() float64 { return in.Max / 1e6 }
