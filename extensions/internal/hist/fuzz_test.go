package hist

import (
	"bytes"
	"math"
	"regexp"
	"runtime"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// hgrmErr is every error ParseHgrm may give: a line, an offset and a fixed text, never
// the file's own bytes (it may come from a stranger).
var hgrmErr = regexp.MustCompile(`^line \d+ \(byte offset \d+\): [a-zA-Z0-9 ,.:]+$`)

// FuzzParseHgrm: no input panics, keeps more than MaxHgrmRows rows or a non-finite value,
// or puts its bytes in an error.
func FuzzParseHgrm(f *testing.F) {
	h := New()
	for v := int64(1); v < 1e6; v = v*3 + 1 {
		h.Record(v)
	}
	var b bytes.Buffer
	if err := h.WriteHgrm(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte("Value\n\nNaN 0.5 1\n"))
	f.Add([]byte("1 0 1\r\n2 1 2\r\n#[Max = 2, Total count = 2]\n"))
	f.Add([]byte("SECRET_TOKEN=hunter2 x y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseHgrm(bytes.NewReader(data))
		if err != nil {
			if !hgrmErr.MatchString(err.Error()) {
				t.Fatalf("error not of the fixed form: %q", err)
			}
			return
		}
		if len(d.Points) > MaxHgrmRows {
			t.Fatalf("%d rows kept", len(d.Points))
		}
		for _, p := range d.Points {
			if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) || !(p.Q >= 0 && p.Q <= 1) || p.Count < 0 {
				t.Fatalf("row accepted: %+v", p)
			}
		}
	})
}

// FuzzDecodeV2: no input panics, allocates more than 16 MiB, or puts a run of its bytes in
// an error; what decodes has the count its buckets hold.
func FuzzDecodeV2(f *testing.F) {
	h := New()
	for v := int64(1); v < 3600e9; v = v*7 + 3 {
		h.Record(v)
	}
	enc, err := h.EncodeV2()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(enc)
	empty, _ := New().EncodeV2()
	f.Add(empty)
	wide, _ := hdr.New(1, math.MaxInt64, 5).Encode(hdr.V2CompressedEncodingCookieBase)
	f.Add(wide)
	f.Add([]byte("HISTFAAAAB542pNpmSzMwMDAxQABzFCaEUzb2NhwAACWhAQW"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		d, err := DecodeV2(data)
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20+uint64(4*len(data)) {
			t.Fatalf("decoding %d bytes allocated %d", len(data), n)
		}
		if err != nil {
			msg := err.Error()
			for i := 0; i+16 <= len(data); i++ {
				if strings.Contains(msg, string(data[i:i+16])) {
					t.Fatalf("error quotes the input: %q", msg)
				}
			}
			return
		}
		if d.Count() < 0 {
			t.Fatalf("count %d", d.Count())
		}
	})
}

// A foreign encoding of 5 significant digits over 1 .. 2^63 asks for a 49 MB counts array:
// it is refused before it is decoded.
func TestDecodeV2RefusesWidePrecision(t *testing.T) {
	wide, err := hdr.New(1, math.MaxInt64, 5).Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = DecodeV2(wide)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "5 significant digits") {
		t.Errorf("DecodeV2: %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("allocated %d bytes", n)
	}
}
