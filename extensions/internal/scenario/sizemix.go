package scenario

import (
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/header"
)

// SizeShare is one size class of a cell's size mix.
type SizeShare struct {
	Size  int    // bytes, header included
	Label string // as written ("4KB")
	// Weight is the class's share in basis points (1/100 of a percent); a mix's weights sum
	// to 10,000, so its messages follow the shares exactly every 10,000 (payload.Mix).
	Weight int
}

// SizeMixLabel is the size tag of a cell with a size mix.
const SizeMixLabel = "mix"

// sizeMix reads `size: { 256B: 70%, 4KB: 25%, 1MB: 5% }`: sizes with their shares of the
// messages, which must add up to 100%. Every size carries the full header (36 bytes or more),
// so each message has its intended send time. Size is the largest (it bounds what the broker
// must take), SizeLabel "mix".
func (d *decoder) sizeMix(c *Cell, n *yaml.Node, p string) {
	if d.set("search") {
		d.errorf(p, "a capacity search runs one size per cell; give the cell one size")
	}
	sum, seen := 0, map[int]string{}
	for _, kv := range d.pairs(n, p, 0) {
		kp := p + "." + kv.key.Value
		size, label, msg := parseSize(kv.key)
		if msg != "" {
			d.add(kv.key, kp, "%s", msg)
			continue
		}
		if size < header.Size {
			d.add(kv.key, kp, "a size in a mix is at least %dB (the full header, with the intended send time), got %s", header.Size, label)
			continue
		}
		if first, dup := seen[size]; dup {
			d.add(kv.key, kp, "%s is the same size as %s", label, first)
			continue
		}
		seen[size] = label
		w, ok := share(kv.val)
		if !ok {
			d.add(kv.val, kp, "expected a share like 25%% (at most two decimals, above 0), got %s", describe(kv.val))
			continue
		}
		sum += w
		c.Mix = append(c.Mix, SizeShare{Size: size, Label: label, Weight: w})
		c.Size = max(c.Size, size)
	}
	switch {
	case len(c.Mix) < 2 && len(c.Mix) == len(n.Content)/2:
		d.errorf(p, "a mix lists at least two sizes with their shares, like { 256B: 70%%, 4KB: 30%% } (one size is size: 256B)")
	case len(c.Mix) == len(n.Content)/2 && sum != 10000:
		d.errorf(p, "the shares add up to %s%%, not 100%%", strconv.FormatFloat(float64(sum)/100, 'f', -1, 64))
	}
	c.SizeLabel = SizeMixLabel
}

// share reads "25%" (or 25.5%) as basis points.
func share(n *yaml.Node) (int, bool) {
	if n.Kind != yaml.ScalarNode {
		return 0, false
	}
	v, ok := strings.CutSuffix(strings.TrimSpace(n.Value), "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	bp := math.Round(f * 100)
	if !ok || err != nil || !(f > 0) || f > 100 || math.Abs(bp-f*100) > 1e-6 {
		return 0, false
	}
	return int(bp), true
}

// MeanSize is the mean message size of the cell (its size, or its mix's weighted mean).
func (c Cell) MeanSize() float64 {
	if len(c.Mix) == 0 {
		return float64(c.Size)
	}
	sum := 0.0
	for _, m := range c.Mix {
		sum += float64(m.Size) * float64(m.Weight) / 10000
	}
	return sum
}

// compressibility reads payload.compressibility: a fraction (0.5) or a percentage (50%) from
// 0 to 90% of random content that codecs can shrink away.
func (d *decoder) compressibility(n *yaml.Node, p, content string) float64 {
	n = d.resolve(n)
	if n == nil || n.Kind == 0 || isNull(n) {
		return 0
	}
	d.vals[p] = n
	if content != "random" {
		d.errorf(p, "applies to content: random (zeros compress entirely, a file as it is)")
		return 0
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(n.Value), 64)
	if v, pct := strings.CutSuffix(strings.TrimSpace(n.Value), "%"); pct {
		f, err = strconv.ParseFloat(strings.TrimSpace(v), 64)
		f /= 100
	}
	if n.Kind != yaml.ScalarNode || err != nil || !(f >= 0 && f <= 0.9) {
		d.errorf(p, "expected a share from 0 to 90%% (like 50%% or 0.5) of the body that codecs can shrink away, got %s", describe(n))
		return 0
	}
	return f
}
