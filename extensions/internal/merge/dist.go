package merge

import (
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// A runner's distributions are kept as their populated buckets (hdr.PackedHistogram), not as
// decoded histograms: a decoded histogram of the runners' geometry (1 ns to 1 h, 3 digits) is
// a 256 KB counts array whatever it holds, so 100 runners × 5 cells × 4 kinds would hold half a
// gigabyte. Buckets add into one dense histogram per cell and kind, in time proportional to
// the populated buckets: the merge of a hundred shards stays well under a second.

// readDist decodes one .hdr file's V2 encoding without a dense counts array. Like
// hist.DecodeV2, it refuses a precision beyond the runners' own (a stranger's file);
// values outside the runners' range are not refused here but found by checkHists, which
// counts what a merge could not keep.
func readDist(b []byte) (*hdr.PackedHistogram, error) {
	p, err := hdr.DecodePacked(b)
	if err != nil {
		return nil, err
	}
	if d := p.SignificantFigures(); d < 1 || d > hist.Digits {
		return nil, fmt.Errorf("a histogram of %d significant digits; at most %d are read", d, hist.Digits)
	}
	return p, nil
}

// newDense is an empty dense histogram of the runners' geometry: hist's own, read back from
// an empty histogram's encoding so the two can never differ.
func newDense() *hdr.Histogram {
	b, err := hist.New().EncodeV2()
	if err == nil {
		var h *hdr.Histogram
		if h, err = hdr.Decode(b); err == nil {
			return h
		}
	}
	panic("merge: hist's own empty encoding does not decode: " + err.Error())
}

// mergeDists adds the runners' buckets of one cell and kind: the merged histogram, the values
// the runners' files hold, and how many of them the runners' geometry could not keep.
func mergeDists(shards []*Shard, id, kind string) (h *hdr.Histogram, want, dropped int64) {
	h = newDense()
	for _, s := range shards {
		if p := s.dists[id][kind]; p != nil {
			want += p.TotalCount()
			dropped += p.MergeInto(h)
		}
	}
	return h, want, dropped
}

// toHist turns a merged dense histogram into a hist.Hist through the V2 encoding, the one
// way in that hist offers; its buckets are exactly h's (same geometry).
func toHist(h *hdr.Histogram) *hist.Hist {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err == nil {
		var out *hist.Hist
		if out, err = hist.DecodeV2(b); err == nil {
			return out
		}
	}
	// Check refused what does not fit the geometry; an encoding of ours always decodes.
	panic("merge: a merged histogram does not round-trip: " + err.Error())
}
