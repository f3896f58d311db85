package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A recording's rows are read in order, CSV or JSON lines; every bad row is named by its
// file and line, and a recording of many rows is summed up without holding them.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.csv", "offset_ms,size,key\n0,100,k1\n0.5,36,\n\n1000,1024,k2\n")
	s, probs := Check(good, "good.csv")
	if len(probs) != 0 || s.Rows != 3 || s.Last != time.Second || s.MaxSize != 1024 || s.Sizes[100] != 1 || len(s.Sizes) != 3 {
		t.Errorf("good.csv: %+v, %q", s, probs)
	}
	j := write("good.jsonl", `{"offset_ms": 0, "size": 64}`+"\n"+`{"offset_ms": 2.5, "size": 64, "key": "a"}`+"\n")
	if s, probs := Check(j, "good.jsonl"); len(probs) != 0 || s.Rows != 2 || s.Last != 2500*time.Microsecond {
		t.Errorf("good.jsonl: %+v, %q", s, probs)
	}
	// Rows with their payload (base64): the size is the payload's, a row without one is made up.
	pl := write("payloads.csv", "offset_ms,size,key,payload\n0,,k1,eyJpZCI6MX0=\n1,2,k2,e30=\n2,100,k3\n")
	if s, probs := Check(pl, "payloads.csv"); len(probs) != 0 || s.Rows != 3 || s.Payloads != 2 || s.Sizes[8] != 1 || s.Sizes[2] != 1 || s.Sizes[100] != 1 {
		t.Errorf("payloads.csv: %+v, %q", s, probs)
	}
	pj := write("payloads.jsonl", `{"offset_ms": 0, "payload": "eyJpZCI6MX0="}`+"\n")
	if s, probs := Check(pj, "payloads.jsonl"); len(probs) != 0 || s.Payloads != 1 || s.MaxSize != 8 {
		t.Errorf("payloads.jsonl: %+v, %q", s, probs)
	}
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"empty.csv", "", []string{"empty.csv: empty recording"}},
		{"header.csv", "t,size\n", []string{`header.csv:1: expected the header offset_ms,size, offset_ms,size,key or offset_ms,size,key,payload, got "t,size"`}},
		{"rows.csv", "offset_ms,size\n", []string{"rows.csv: no rows"}},
		{"bad.csv", "offset_ms,size,key\n5,100\n4,100\n-1,100\nx,100\n6,12\n7,67108865\n8,100," + strings.Repeat("k", 300) + "\n9,100,a\x01b\n10\n",
			[]string{"bad.csv:3: offset 4ms comes before the previous row's 5ms", "bad.csv:4: offset_ms -1 is not a time", `bad.csv:5: offset_ms "x" is not a number`,
				"bad.csv:6: size 12 is outside 36 bytes to 64 MB", "bad.csv:7: size 67108865 is outside", "bad.csv:8: a key of 300 bytes; at most 256",
				`bad.csv:9: the key "a\x01b" holds a control character`, `bad.csv:10: expected offset_ms,size[,key[,payload]], got "10"`}},
		{"bad.jsonl", `{"offset_ms": 1, "size": 100, "extra": 1}` + "\n" + `{"size": 100}` + "\n", []string{"bad.jsonl:1: expected {", "bad.jsonl:2: expected {"}},
		{"long.csv", "offset_ms,size\n" + strings.Repeat("1", 1<<20+10) + "\n1,100\n", []string{"long.csv:2: a line longer than 1048576 bytes"}},
		{"payloads.csv", "offset_ms,size,key,payload\n0,,k,!!!\n1,3,k,e30=\n2,,k,\n", []string{"payloads.csv:2: the payload is not base64", "payloads.csv:3: size 3, but the payload holds 2 bytes", "payloads.csv:4: neither a size nor a payload"}},
		{"kind.txt", "offset_ms,size\n", []string{"kind.txt: a recording is a .csv or .jsonl file"}},
	} {
		_, probs := Check(write(c.name, c.text), c.name)
		if len(probs) != len(c.want) {
			t.Errorf("%s: %d problems %q, want %d", c.name, len(probs), probs, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(probs[i], w) {
				t.Errorf("%s: problem %d %q, want %q…", c.name, i, probs[i], w)
			}
		}
	}
	many := "offset_ms,size\n" + strings.Repeat("x,100\n", 30)
	if _, probs := Check(write("many.csv", many), "many.csv"); len(probs) != MaxShown+1 || probs[MaxShown] != "many.csv: 10 more problems" {
		t.Errorf("many.csv: %d problems, last %q", len(probs), probs[len(probs)-1])
	}
}
