package payload

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A template's problems name their line and column; every one is reported.
func TestParseTemplateProblems(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`{"id": {{sequence}}}`, `1:8: unknown field {{sequence}} (valid: seq, uuid, now, unix_ms, random_int LO HI)`},
		{"{\n  \"n\": {{random_int 5}}\n}", `2:8: {{random_int 5}}: random_int takes two integers, LO and HI, like {{random_int 1 100}}`},
		{`{"n": {{random_int 9 1}}}`, `1:7: {{random_int 9 1}}: random_int takes two integers LO <= HI, like {{random_int 1 100}}`},
		{`{"a": {{uuid}}, "b": {{seq`, `1:22: {{ without a closing }}`},
		{`{{x}} {{y}}`, `1:1: unknown field {{x}} (valid: seq, uuid, now, unix_ms, random_int LO HI) | 1:7: unknown field {{y}} (valid: seq, uuid, now, unix_ms, random_int LO HI)`},
	} {
		_, errs := ParseTemplate([]byte(tc.text))
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		if g := strings.Join(got, " | "); g != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.text, g, tc.want)
		}
	}
}

// Every rendering is valid JSON padded to the exact size, its fields filled in per message,
// never longer than MaxLen (the widest values included), after the stamp's room when asked.
func TestTemplateRenders(t *testing.T) {
	const text = `{"seq": {{seq}}, "id": "{{uuid}}", "at": "{{now}}", "ms": {{unix_ms}}, "qty": {{random_int -5 100}}}`
	tpl, errs := ParseTemplate([]byte(text))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	size := tpl.MaxLen() + 10
	now := time.Date(2026, 11, 29, 13, 5, 0, 123e6, time.FixedZone("CET", 3600))
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	ids := map[string]bool{}
	var buf []byte
	for _, seq := range []uint64{0, 1, 42, math.MaxUint64} {
		for range 50 {
			buf = tpl.Render(buf, 0, size, seq, now)
			if len(buf) != size {
				t.Fatalf("%d bytes, want %d", len(buf), size)
			}
			var v struct {
				Seq uint64
				ID  string
				At  string
				Ms  int64
				Qty int64
			}
			if err := json.Unmarshal(buf, &v); err != nil {
				t.Fatalf("%q: %v", buf, err)
			}
			if v.Seq != seq || !uuid.MatchString(v.ID) || v.At != "2026-11-29T12:05:00.123Z" || v.Ms != now.UnixMilli() || v.Qty < -5 || v.Qty > 100 {
				t.Fatalf("rendered %+v for seq %d", v, seq)
			}
			if n := len(strings.TrimRight(string(buf), " ")); n > tpl.MaxLen() {
				t.Errorf("rendered %d bytes, MaxLen %d", n, tpl.MaxLen())
			}
			ids[v.ID] = true
		}
	}
	if len(ids) != 200 {
		t.Errorf("%d distinct uuids in 200 bodies", len(ids))
	}
	b := NewTemplated(tpl, size+36, 36).NextFor(nil, 7)
	if len(b) != size+36 || !json.Valid(b[36:]) {
		t.Errorf("after 36 bytes of stamp room: %d bytes, %q", len(b), b[36:])
	}
}
