// Package textclean makes text that came from a file or a broker safe to print on one line
// of a terminal, a CI log or a text file: a scenario name, a broker's error or a results
// folder from a pull request must not move the cursor, start a line of its own (a fake
// "result: PASS") or reorder what a reader sees (bidi controls).
package textclean

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Clean returns s as one printable line: line breaks (CR, LF, CRLF, U+0085, U+2028, U+2029)
// become "; " (trailing ones are dropped), a tab a space, escape sequences (ESC [ … and the
// string commands ESC ] P X ^ _ … up to BEL or ESC \) are removed, other control characters
// (C0, DEL, C1) and invalid UTF-8 bytes are shown as \xNN, and bidi controls (U+200E, U+200F,
// U+061C, U+202A-U+202E, U+2066-U+2069) are removed.
func Clean(s string) string {
	s = strings.TrimRight(s, "\r\n")
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteString("; ")
			i += 2
			continue
		case c == '\n' || c == '\r':
			b.WriteString("; ")
		case c == '\t':
			b.WriteByte(' ')
		case c == 0x1b:
			i = skipEscape(s, i)
			continue
		case c < 0x20 || c == 0x7f:
			hex(&b, c)
		case c < utf8.RuneSelf:
			b.WriteByte(c)
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				hex(&b, c)
			case r == 0x85 || r == 0x2028 || r == 0x2029:
				b.WriteString("; ")
			case r >= 0x80 && r <= 0x9f:
				hex(&b, byte(r))
			case IsBidi(r):
				// dropped
			default:
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		i++
	}
	return b.String()
}

// Lines cleans each line of a text mqbench composed itself (summary.txt, a list of
// problems) and keeps its line breaks; what came from outside must go through Clean first,
// or a line break inside it would survive as one of the text's own.
func Lines(s string) string {
	trailing := strings.HasSuffix(s, "\n")
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = Clean(l)
	}
	out := strings.Join(lines, "\n")
	if trailing {
		out += "\n"
	}
	return out
}

// BidiClass is the bidirectional formatting characters IsBidi names, as the body of a regular
// expression's character class, for the writers that strip them with their other characters
// in one expression (junit.xml, HTML).
const BidiClass = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"

// IsBidi reports whether r is a bidirectional formatting character: invisible, they make
// a terminal or browser show text in an order other than the bytes' ("Trojan Source").
func IsBidi(r rune) bool {
	return r == 0x200e || r == 0x200f || r == 0x061c || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// isPlain is the common case, printable ASCII only, returned as is without a copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

func hex(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	if c < 0x10 {
		b.WriteByte('0')
	}
	b.WriteString(strconv.FormatUint(uint64(c), 16))
}

// skipEscape returns the index after the escape sequence that starts at s[i] (ESC): CSI
// (ESC [ parameters intermediates final), the string commands up to their terminator (or
// the end of s), or ESC and one more character.
func skipEscape(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		i++
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
			i++ // parameters and intermediates
		}
		if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
			i++ // final byte
		}
		return i
	case ']', 'P', 'X', '^', '_':
		for i++; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return i
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++ // intermediates (ESC ( B)
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}
