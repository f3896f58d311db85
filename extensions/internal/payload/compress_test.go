package payload

import (
	"math"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// Random content with a compressibility c compresses (zstd, the default level) to 1 − c of
// its size within 5 points, message by message, from 4 KB up; smaller bodies carry the
// codec's fixed cost on top (at 512 B within 10 points); 0 stays incompressible.
func TestCompressibility(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	for _, c := range []float64{0, 0.25, 0.5, 0.75, 0.9} {
		for _, size := range []int{512, 4096, 65536} {
			s, err := New(Spec{Content: "random", Compressibility: c}, size)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for range 50 {
				b := s.Next()
				ratio := float64(len(enc.EncodeAll(b, nil))) / float64(len(b))
				worst = math.Max(worst, math.Abs(ratio-(1-c)))
			}
			if bound := map[bool]float64{true: 0.10, false: 0.05}[size < 4096]; worst > bound {
				t.Errorf("compressibility %v, %d B: a message compressed to %.3f off 1 − c", c, size, worst)
			}
		}
	}
}
