package results

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// Minutes: intervals grouped by the minute they start in, counted from the first one, each
// minute's p95 from all of its values; a gap (no interval) leaves no minute; the last minute
// may be partial. Each minute here holds one value ladder, so its p95 is known.
func TestMinutes(t *testing.T) {
	second := func(start float64, ms int64) Interval {
		h := hist.New()
		for i := int64(1); i <= 100; i++ {
			h.Record(i * ms * 10_000) // 100 values from ms/100 to ms: p95 = 0.95 * ms
		}
		return Interval{Start: start, Length: 1, H: h}
	}
	var ivs []Interval
	for s := 0; s < 60; s++ {
		ivs = append(ivs, second(5+float64(s), 1)) // minute 0: 1 ms ladders, from t=5
	}
	for s := 60; s < 120; s++ {
		ivs = append(ivs, second(5+float64(s), 10)) // minute 1: 10 ms ladders
	}
	for s := 180; s < 190; s++ {
		ivs = append(ivs, second(5+float64(s), 100)) // minute 3 (minute 2 empty), partial
	}
	var m Minutes
	for _, iv := range ivs {
		m.Add(iv)
	}
	got := m.Stats()
	want := []MinuteStat{{T: 5, Count: 6000, P95: 950}, {T: 65, Count: 6000, P95: 9500}, {T: 185, Count: 1000, P95: 95000}}
	if len(got) != len(want) {
		t.Fatalf("minutes %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.T != w.T || g.Count != w.Count || g.P95 < w.P95 || g.P95 > w.P95*1.001 {
			t.Errorf("minute %d: %+v, want %+v (p95 within 0.1%%)", i, g, w)
		}
	}
	if (&Minutes{}).Stats() != nil {
		t.Error("no intervals: want no minutes")
	}
}

// EachHlog reads what the runner writes (header, comment lines, one histogram per line) and
// names the file and line of a broken one.
func TestEachHlog(t *testing.T) {
	h := hist.New()
	h.Record(1500)
	h.Record(2500)
	enc, err := h.EncodeV2()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.hlog")
	text := "#[mqbench x, cell c1, e2e latency]\n#[Histogram log format version 1.3]\n" +
		"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n" +
		fmt.Sprintf("5.001,1.000,0.003,%s\n7.002,0.999,0.003,%s\n", enc, enc)
	if err := os.WriteFile(good, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var ivs []Interval
	err = EachHlog(good, func(iv Interval) error { ivs = append(ivs, iv); return nil })
	if err != nil || len(ivs) != 2 || ivs[1].Start != 7.002 || ivs[1].Length != 0.999 || ivs[0].H.Count() != 2 {
		t.Fatalf("EachHlog: %d intervals %+v, %v", len(ivs), ivs, err)
	}
	for name, line := range map[string]string{
		"fields":    "5.0,1.0,0.1\n",
		"start":     "x,1.0,0.1," + string(enc) + "\n",
		"histogram": "5.0,1.0,0.1,bm90IGEgaGlzdG9ncmFt\n",
	} {
		p := filepath.Join(dir, name+".hlog")
		if err := os.WriteFile(p, []byte("#[c]\n"+line), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := MinutesOfHlog(p); err == nil || !strings.Contains(err.Error(), p+":2") {
			t.Errorf("%s: error %v, want one naming %s:2", name, err, p)
		}
	}
}
