package payload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
)

// Keys draws message keys: k0 … k<n-1> from a distribution, or the fixed names' keys.
type Keys struct {
	kind     string
	n        int
	cdf      []float64 // zipf: the cumulative weights, normalised
	hot      int       // hot: keys k0 … k<hot-1> are the hot ones
	hotShare float64
}

// NewKeys is the keys of kind (none, fixed, round-robin, random, zipf, hot, uniform) over n
// keys (round-robin: 64 when n is 0); s is zipf's exponent, hotShare and hotKeys hot's
// fractions of the messages and of the keys.
func NewKeys(kind string, n int, s, hotShare, hotKeys float64) (*Keys, error) {
	k := &Keys{kind: kind, n: n}
	switch kind {
	case "none", "", "fixed", "random":
	case "round-robin":
		if k.n == 0 {
			k.n = 64
		}
	case "uniform":
	case "zipf":
		k.cdf = make([]float64, n)
		sum := 0.0
		for i := range n {
			sum += 1 / math.Pow(float64(i+1), s)
			k.cdf[i] = sum
		}
		for i := range k.cdf {
			k.cdf[i] /= sum
		}
	case "hot":
		k.hot, k.hotShare = int(math.Ceil(hotKeys*float64(n))), hotShare
	default:
		return nil, fmt.Errorf("unknown key distribution %q", kind)
	}
	if kind != "none" && kind != "" && kind != "fixed" && kind != "random" && k.n < 1 {
		return nil, fmt.Errorf("key distribution %s needs keys", kind)
	}
	return k, nil
}

// Next is message seq's key (nil: none).
func (k *Keys) Next(seq uint64) []byte {
	switch k.kind {
	case "fixed":
		return []byte("mqbench")
	case "random":
		return []byte(fmt.Sprintf("%016x", rand.Uint64()))
	case "round-robin":
		return Key(int(seq % uint64(k.n)))
	case "uniform":
		return Key(rand.IntN(k.n))
	case "zipf":
		return Key(sort.SearchFloat64s(k.cdf, rand.Float64()))
	case "hot":
		if rand.Float64() < k.hotShare {
			return Key(rand.IntN(k.hot))
		}
		return Key(k.hot + rand.IntN(k.n-k.hot))
	}
	return nil
}

// Key is key number i's bytes: k<i>.
func Key(i int) []byte { return strconv.AppendInt([]byte{'k'}, int64(i), 10) }

// Share is the fraction of the messages key i gets (a distribution's theory; 0 for the named
// kinds but round-robin and uniform).
func (k *Keys) Share(i int) float64 {
	switch k.kind {
	case "round-robin", "uniform":
		return 1 / float64(k.n)
	case "zipf":
		if i == 0 {
			return k.cdf[0]
		}
		return k.cdf[i] - k.cdf[i-1]
	case "hot":
		if i < k.hot {
			return k.hotShare / float64(k.hot)
		}
		return (1 - k.hotShare) / float64(k.n-k.hot)
	}
	return 0
}
