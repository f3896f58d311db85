package hist

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestHgrmMatchesHdrHistogramAndParsesBack(t *testing.T) {
	h := New()
	for i := int64(1); i <= 10000; i++ {
		h.Record(i * 1000) // 1 µs … 10 ms, uniform
	}
	var buf bytes.Buffer
	if err := h.WriteHgrm(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	lines := strings.Split(text, "\n")
	if want := "       Value     Percentile TotalCount 1/(1-Percentile)"; lines[0] != want || lines[1] != "" {
		t.Fatalf("header:\n%q\nwant\n%q", lines[0], want)
	}
	row := regexp.MustCompile(`^ {0,11}\d+\.\d{3} 0\.\d{12} {1,10}\d+ {1,14}\d+\.\d{2}$`)
	last := regexp.MustCompile(`^ {0,11}\d+\.\d{3} 1\.000000000000 {6}10000$`)
	rows := 0
	for _, l := range lines[2:] {
		if strings.HasPrefix(l, "#[") || l == "" {
			break
		}
		if !row.MatchString(l) && !last.MatchString(l) {
			t.Fatalf("row does not have the .hgrm layout: %q", l)
		}
		rows++
	}
	if rows < 50 {
		t.Errorf("only %d rows; want HdrHistogram's 5 ticks per half distance", rows)
	}
	// The footer is HdrHistogram's, with the same bucket layout as the library reports.
	var ref bytes.Buffer
	if _, err := h.h.PercentilesPrint(&ref, 5, 1000); err != nil {
		t.Fatal(err)
	}
	refBuckets := regexp.MustCompile(`#\[Buckets = +(\d+), SubBuckets += +(\d+)\]`).FindStringSubmatch(ref.String())
	gotBuckets := regexp.MustCompile(`#\[Buckets = +(\d+), SubBuckets += +(\d+)\]`).FindStringSubmatch(text)
	if refBuckets == nil || gotBuckets == nil || refBuckets[1] != gotBuckets[1] || refBuckets[2] != gotBuckets[2] {
		t.Errorf("bucket footer %v, library says %v", gotBuckets, refBuckets)
	}

	d, err := ParseHgrm(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if d.TotalCount != 10000 || d.Max < 10000 || d.Max > 10010 || d.Mean < 4990 || d.Mean > 5010 {
		t.Errorf("footer parsed as count %d max %.3f mean %.3f", d.TotalCount, d.Max, d.Mean)
	}
	for _, c := range []struct{ q, want float64 }{{0.5, 5000}, {0.9, 9000}, {0.99, 9900}} {
		got := d.ValueAt(c.q)
		ref := float64(h.h.ValueAtQuantile(c.q*100)) / 1e3
		if got < c.want*0.995 || got > c.want*1.005 || got < ref*0.999 || got > ref*1.001 {
			t.Errorf("ValueAt(%v) = %.3f, want ≈ %.0f (library %.3f)", c.q, got, c.want, ref)
		}
	}
}

func TestHgrmOfEmptyHistogram(t *testing.T) {
	var buf bytes.Buffer
	if err := New().WriteHgrm(&buf); err != nil {
		t.Fatal(err)
	}
	d, err := ParseHgrm(&buf)
	if err != nil || len(d.Points) != 0 || d.TotalCount != 0 {
		t.Fatalf("empty histogram: %+v, %v", d, err)
	}
}

func TestParseHgrmFromJavaOutput(t *testing.T) {
	// As HdrHistogram's Java HistogramLogProcessor writes it (values in ms there).
	java := `       Value     Percentile TotalCount 1/(1-Percentile)

       0.045 0.000000000000          1           1.00
       0.120 0.500000000000        500           2.00
       1.500 0.990000000000        990         100.00
       9.000 1.000000000000       1000
#[Mean    =        0.200, StdDeviation   =        0.500]
#[Max     =        9.000, Total count    =         1000]
#[Buckets =           22, SubBuckets     =         2048]
`
	d, err := ParseHgrm(strings.NewReader(java))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Points) != 4 || d.TotalCount != 1000 || d.Max != 9 || d.ValueAt(0.99) != 1.5 || d.ValueAt(0.995) != 9 {
		t.Fatalf("parsed %+v", d)
	}
	if _, err := ParseHgrm(strings.NewReader("1.0 nope 3\n")); err == nil {
		t.Error("a malformed row parsed")
	}
}
