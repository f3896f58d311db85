package payload

import (
	"bytes"
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// A template is a payload file with per-message fields, `{{seq}}`, `{{uuid}}`, `{{now}}`,
// `{{unix_ms}}` and `{{random_int LO HI}}`, rendered into every body. A body keeps its cell's
// exact size: the rendered text is padded with spaces (JSON, XML, CSV and most text formats
// ignore trailing whitespace), so throughput, size classes and broker limits stay what the
// scenario says.

// TemplateFields lists the fields a template may use, for error messages and docs.
const TemplateFields = "seq, uuid, now, unix_ms, random_int LO HI"

// Template is a parsed template.
type Template struct {
	parts []tplPart
	max   int // the longest rendering, in bytes
}

type tplKind uint8

const (
	tplText tplKind = iota
	tplSeq
	tplUUID
	tplNow
	tplUnixMs
	tplRandomInt
)

type tplPart struct {
	kind   tplKind
	text   []byte // tplText
	lo, hi int64  // tplRandomInt
}

// widths: the longest rendering of each field (seq: a uint64; now: RFC 3339 in UTC with ms;
// unix_ms: 13 digits until the year 2286).
var widths = map[tplKind]int{tplSeq: 20, tplUUID: 36, tplNow: len("2006-01-02T15:04:05.000Z"), tplUnixMs: 13}

// TemplateError is one problem in a template, at a line and column of the file (1-based).
type TemplateError struct {
	Line, Col int
	Msg       string
}

func (e TemplateError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// ParseTemplate parses text, returning every problem found (at most 20).
func ParseTemplate(text []byte) (*Template, []TemplateError) {
	t := &Template{}
	var errs []TemplateError
	rest, off := text, 0
	for len(rest) > 0 && len(errs) < 20 {
		i := bytes.Index(rest, []byte("{{"))
		if i < 0 {
			t.text(rest)
			break
		}
		t.text(rest[:i])
		j := bytes.Index(rest[i:], []byte("}}"))
		line, col := position(text, off+i)
		if j < 0 {
			errs = append(errs, TemplateError{line, col, "{{ without a closing }}"})
			break
		}
		if p, msg := parseField(string(rest[i+2 : i+j])); msg != "" {
			errs = append(errs, TemplateError{line, col, msg})
		} else {
			t.parts = append(t.parts, p)
			t.max += p.width()
		}
		off += i + j + 2
		rest = rest[i+j+2:]
	}
	return t, errs
}

func (t *Template) text(b []byte) {
	if len(b) > 0 {
		t.parts = append(t.parts, tplPart{kind: tplText, text: bytes.Clone(b)})
		t.max += len(b)
	}
}

func parseField(f string) (tplPart, string) {
	fs := strings.Fields(f)
	name := ""
	if len(fs) > 0 {
		name = fs[0]
	}
	kinds := map[string]tplKind{"seq": tplSeq, "uuid": tplUUID, "now": tplNow, "unix_ms": tplUnixMs}
	if k, ok := kinds[name]; ok && len(fs) == 1 {
		return tplPart{kind: k}, ""
	}
	if name == "random_int" {
		if len(fs) != 3 {
			return tplPart{}, fmt.Sprintf("{{%s}}: random_int takes two integers, LO and HI, like {{random_int 1 100}}", f)
		}
		lo, err1 := strconv.ParseInt(fs[1], 10, 64)
		hi, err2 := strconv.ParseInt(fs[2], 10, 64)
		if err1 != nil || err2 != nil || lo > hi || hi-lo+1 <= 0 {
			return tplPart{}, fmt.Sprintf("{{%s}}: random_int takes two integers LO <= HI, like {{random_int 1 100}}", f)
		}
		return tplPart{kind: tplRandomInt, lo: lo, hi: hi}, ""
	}
	return tplPart{}, fmt.Sprintf("unknown field {{%s}} (valid: %s)", f, TemplateFields)
}

func (p tplPart) width() int {
	switch p.kind {
	case tplText:
		return len(p.text)
	case tplRandomInt:
		return max(len(strconv.FormatInt(p.lo, 10)), len(strconv.FormatInt(p.hi, 10)))
	}
	return widths[p.kind]
}

// position is the 1-based line and column of byte offset off in text.
func position(text []byte, off int) (line, col int) {
	line = 1 + bytes.Count(text[:off], []byte("\n"))
	return line, off - bytes.LastIndexByte(text[:off], '\n')
}

// MaxLen is the longest body the template renders, before padding.
func (t *Template) MaxLen() int { return t.max }

// Render appends the template rendered for message seq at now to buf[:offset] (offset bytes
// left for the stamp), padded with spaces to size; buf grows when too small.
func (t *Template) Render(buf []byte, offset, size int, seq uint64, now time.Time) []byte {
	b := buf[:0]
	if cap(b) < size {
		b = make([]byte, 0, size)
	}
	b = b[:offset]
	for _, p := range t.parts {
		switch p.kind {
		case tplText:
			b = append(b, p.text...)
		case tplSeq:
			b = strconv.AppendUint(b, seq, 10)
		case tplUUID:
			b = appendUUID(b)
		case tplNow:
			b = now.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
		case tplUnixMs:
			b = strconv.AppendInt(b, now.UnixMilli(), 10)
		case tplRandomInt:
			b = strconv.AppendInt(b, p.lo+mrand.Int64N(p.hi-p.lo+1), 10)
		}
	}
	for len(b) < size {
		b = append(b, ' ')
	}
	return b[:size]
}

// appendUUID appends a random (version 4) UUID in its 36-character form.
func appendUUID(b []byte) []byte {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	for i, x := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[x>>4], hex[x&0x0f])
	}
	return b
}

// Templated is a Body rendering a template at one size, offset bytes left for the stamp.
type Templated struct {
	t            *Template
	size, offset int
}

// NewTemplated returns bodies of size bytes rendered from t after offset bytes.
func NewTemplated(t *Template, size, offset int) *Templated {
	return &Templated{t: t, size: size, offset: offset}
}

// Next is a body rendered for message 0.
func (s *Templated) Next() []byte { return s.NextFor(nil, 0) }

// NextInto is a body rendered for message 0, in buf.
func (s *Templated) NextInto(buf []byte) []byte { return s.NextFor(buf, 0) }

// NextFor is message seq's body, rendered now, in buf when it is large enough.
func (s *Templated) NextFor(buf []byte, seq uint64) []byte {
	return s.t.Render(buf, s.offset, s.size, seq, time.Now())
}

var _ Body = (*Templated)(nil)

// MaxTemplate is the largest template file, in bytes: a message body's template, not a dataset.
const MaxTemplate = 1 << 20

// ReadTemplate reads and parses the template file at path; err is set when the file cannot
// be read or is larger than MaxTemplate, problems lists what is wrong inside it.
func ReadTemplate(path string) (t *Template, problems []TemplateError, err error) {
	b, err := readFile(path, MaxTemplate+1)
	if err != nil {
		return nil, nil, err
	}
	if len(b) > MaxTemplate {
		return nil, nil, fmt.Errorf("template %s is larger than %d bytes", path, MaxTemplate)
	}
	t, problems = ParseTemplate(b)
	return t, problems, nil
}
