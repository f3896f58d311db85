package k8s

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// The generated bash scripts (Instructions, SingleInstructions) hold values from a scenario
// and from flags, which may come from a stranger: a value in a command is one shell word
// (shellQuote), and no value puts a control character into a line (a newline would end a
// comment and start a command).

// scriptWriter writes one line of a script per call; every string argument has its control
// characters written as escapes, so the format alone decides where lines and words end.
type scriptWriter struct{ b strings.Builder }

func (s *scriptWriter) line(format string, a ...any) {
	for i, v := range a {
		if str, ok := v.(string); ok {
			a[i] = escapeControls(str)
		}
	}
	fmt.Fprintf(&s.b, format+"\n", a...)
}

func (s *scriptWriter) String() string { return s.b.String() }

// escapeControls writes each control character of s as its Go escape (\n, \x1b).
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// shellQuote quotes s as one bash word: bare when it holds only safe characters, in single
// quotes otherwise, and as $'…' with escapes when it holds a control character (the word
// keeps its exact value on one line).
func shellQuote(s string) string {
	switch {
	case s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@") == "":
		return s
	case !strings.ContainsFunc(s, unicode.IsControl):
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString("'")
	return b.String()
}
