package textclean

import (
	"regexp"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "nats broker unreachable at nats://127.0.0.1:1", "nats broker unreachable at nats://127.0.0.1:1"},
		{"fake verdict line", "refused\nresult: PASS", "refused; result: PASS"},
		{"crlf and cr", "a\r\nb\rc", "a; b; c"},
		{"trailing newline", "denied\n", "denied"},
		{"tab", "a\tb", "a b"},
		{"csi colour and clear", "\x1b[31mred\x1b[0m\x1b[2J", "red"},
		{"osc title", "a\x1b]0;owned\x07b", "ab"},
		{"osc hyperlink st", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"charset", "a\x1b(Bb", "ab"},
		{"lone esc at end", "a\x1b", "a"},
		{"c0", "a\x00b\x07c", `a\x00b\x07c`},
		{"del", "a\x7fb", `a\x7fb`},
		{"c1 csi", "a\u009b31mb", `a\x9b31mb`},
		{"nel and line separators", "a\u0085b\u2028c\u2029d", "a; b; c; d"},
		{"invalid utf8", "a\xffb", `a\xffb`},
		{"bidi override", "user\u202eexe.txt", "userexe.txt"},
		{"bidi isolates and marks", "\u2066a\u2069\u200e\u200f\u061cb\u202a\u202b\u202c\u202d", "ab"},
		{"unicode kept", "größe 1KB → ok", "größe 1KB → ok"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Clean(c.in)
			if got != c.want {
				t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
			}
			for _, r := range got {
				if r < 0x20 || (r >= 0x7f && r <= 0x9f) || IsBidi(r) || r == 0x2028 || r == 0x2029 {
					t.Errorf("Clean(%q) kept %U", c.in, r)
				}
			}
		})
	}
}

func TestLines(t *testing.T) {
	got := Lines("head \x1b[2J\nresult: FAIL\u202e\n")
	if got != "head \nresult: FAIL\n" {
		t.Errorf("Lines = %q", got)
	}
}

type inner struct {
	Msg    string
	Values []float64
}

type outer struct {
	Name   string
	In     *inner
	List   []inner
	ByName map[string]string
	Any    any
	hidden string
}

// Strings cleans every string, however deep, and leaves the original as it was.
func TestStrings(t *testing.T) {
	orig := outer{Name: "a\nb", In: &inner{Msg: "x\x1b[2Jy", Values: []float64{1, 2}},
		List: []inner{{Msg: "ok\nresult: PASS"}}, ByName: map[string]string{"k\n": "v\u202e"}, Any: "i\n", hidden: "h\n"}
	got := Strings(orig)
	if got.Name != "a; b" || got.In.Msg != "xy" || got.List[0].Msg != "ok; result: PASS" || got.ByName["k"] != "v" || got.Any != "i" {
		t.Errorf("Strings = %+v (in %+v)", got, *got.In)
	}
	if got.In.Values[1] != 2 || got.hidden != "h\n" {
		t.Errorf("numbers or unexported fields changed: %+v", got)
	}
	if orig.Name != "a\nb" || orig.In.Msg != "x\x1b[2Jy" || orig.List[0].Msg != "ok\nresult: PASS" || !strings.Contains(orig.ByName["k\n"], "\u202e") {
		t.Errorf("the original changed: %+v", orig)
	}
}

// BidiClass, the regular-expression spelling the HTML and JUnit writers use, names exactly
// the characters IsBidi does.
func TestBidiClassIsIsBidi(t *testing.T) {
	class := regexp.MustCompile("[" + BidiClass + "]")
	for r := rune(0); r < 0x10000; r++ {
		if class.MatchString(string(r)) != IsBidi(r) {
			t.Errorf("U+%04X: class %v, IsBidi %v", r, class.MatchString(string(r)), IsBidi(r))
		}
	}
}
