// Package hist keeps a full latency distribution (HdrHistogram, 3 significant digits) so the
// summary can report percentiles to p99.9999 and max without keeping raw samples.
package hist

import (
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// highest trackable value: one hour in ns. Anything longer is clamped (and still counted).
const highestNs = int64(3600e9)

// Hist is a concurrency-safe HdrHistogram of durations in nanoseconds.
type Hist struct {
	mu sync.Mutex
	h  *hdr.Histogram
}

// New returns an empty histogram covering 1 ns … 1 h at 3 significant digits.
func New() *Hist { return &Hist{h: hdr.New(1, highestNs, 3)} }

// Record adds one duration. Negative values (clock misuse) are clamped to 0 so they remain
// visible as a suspicious min rather than vanishing.
func (h *Hist) Record(ns int64) {
	if ns < 0 {
		ns = 0
	} else if ns > highestNs {
		ns = highestNs
	}
	h.mu.Lock()
	_ = h.h.RecordValue(ns)
	h.mu.Unlock()
}

// Percentiles reported everywhere: the tail is where SLAs break.
var Percentiles = []struct {
	Key string
	Q   float64
}{
	{"p50", 50}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p99_9", 99.9}, {"p99_99", 99.99},
	{"p99_999", 99.999}, {"p99_9999", 99.9999},
}

// Stats is a snapshot in microseconds.
type Stats struct {
	Count int64              `json:"count"`
	Min   float64            `json:"min"`
	Mean  float64            `json:"mean"`
	Max   float64            `json:"max"`
	P     map[string]float64 `json:"percentiles"`
}

// Snapshot returns the distribution in µs (3 decimals kept, i.e. ns resolution).
func (h *Hist) Snapshot() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := Stats{Count: h.h.TotalCount(), P: make(map[string]float64, len(Percentiles))}
	if s.Count == 0 {
		return s
	}
	s.Min = us(h.h.Min())
	s.Max = us(h.h.Max())
	s.Mean = h.h.Mean() / 1e3
	for _, p := range Percentiles {
		s.P[p.Key] = us(h.h.ValueAtQuantile(p.Q))
	}
	return s
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

// Count is the number of recorded values.
func (h *Hist) Count() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.h.TotalCount()
}

// EncodeV2 returns the histogram in HdrHistogram's V2 compressed encoding, base64 (the form
// Java's Histogram.decodeFromCompressedByteBuffer and the C library's hdr_log_decode read).
func (h *Hist) EncodeV2() ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.h.Encode(hdr.V2CompressedEncodingCookieBase)
}
