// Package replay reads a recording of traffic: one row per message, its offset from the
// recording's start, its size and optionally its key and its payload (base64), as CSV
// (offset_ms,size[,key[,payload]], a header line first) or JSON lines ({"offset_ms": 12.5,
// "size": 1024, "key": "k1", "payload": "eyJ…"}); a row with a payload has its size (the
// size field may be left empty or 0, else it must match). A recording
// comes with a scenario, so it is untrusted: it is read a row at a time (a file of millions
// of rows takes no more memory than one), every row is checked (offsets from 0 and never
// decreasing, sizes from 36 bytes to 64 MB, keys of printable text up to 256 bytes), and a
// problem names the file and line.
package replay

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ErrStop marks an error after which the recording cannot be read on (it adds no text).
var ErrStop = stopErr{}

type stopErr struct{}

func (stopErr) Error() string { return "" }

// Row is one recorded message.
type Row struct {
	Offset time.Duration // from the recording's start
	Size   int           // bytes, mqbench's header included
	Key    []byte        // nil: no key
	// Payload is the recorded body, sent as it is (nil: made up at Size); Size is its length.
	Payload []byte
}

// Limits of a row.
const (
	MinSize  = 36       // the full header, with the intended send time
	MaxSize  = 64 << 20 // as a cell's size
	MaxKey   = 256
	maxLine  = 1 << 20 // a row with its payload in base64
	MaxShown = 20      // problems listed before the rest are counted
)

// Reader reads a recording's rows in order.
type Reader struct {
	f     *os.File
	sc    *bufio.Scanner
	name  string // as messages name the file
	jsonl bool
	line  int
	last  time.Duration
}

// Open opens a recording; its format is its extension's (.csv, .jsonl).
func Open(path, name string) (*Reader, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".csv" && ext != ".jsonl" {
		return nil, fmt.Errorf("%s: a recording is a .csv or .jsonl file", name)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, errors.Unwrap(err))
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, maxLine), maxLine)
	r := &Reader{f: f, sc: sc, name: name, jsonl: ext == ".jsonl"}
	if !r.jsonl { // the header line
		if !sc.Scan() {
			f.Close()
			return nil, fmt.Errorf("%s: empty recording (expected a header line offset_ms,size[,key] and rows)", name)
		}
		r.line = 1
		if h := strings.TrimSpace(sc.Text()); h != "offset_ms,size" && h != "offset_ms,size,key" && h != "offset_ms,size,key,payload" {
			f.Close()
			return nil, fmt.Errorf("%s:1: expected the header offset_ms,size, offset_ms,size,key or offset_ms,size,key,payload, got %q", name, clip(h))
		}
	}
	return r, nil
}

// Close closes the file.
func (r *Reader) Close() error { return r.f.Close() }

// Next is the next row; io.EOF after the last. A bad row's error names file:line and the
// reader goes on with the next row.
func (r *Reader) Next() (Row, error) {
	for r.sc.Scan() {
		r.line++
		text := strings.TrimSpace(r.sc.Text())
		if text == "" {
			continue
		}
		row, err := r.parse(text)
		if err != nil {
			return Row{}, fmt.Errorf("%s:%d: %v", r.name, r.line, err)
		}
		if row.Offset < r.last {
			return Row{}, fmt.Errorf("%s:%d: offset %v comes before the previous row's %v (rows are in time order)", r.name, r.line, row.Offset, r.last)
		}
		r.last = row.Offset
		return row, nil
	}
	if err := r.sc.Err(); err != nil { // the file cannot be read on: no row after this
		r.line++
		if errors.Is(err, bufio.ErrTooLong) {
			return Row{}, fmt.Errorf("%w%s:%d: a line longer than %d bytes", ErrStop, r.name, r.line, maxLine)
		}
		return Row{}, fmt.Errorf("%w%s: %v", ErrStop, r.name, err)
	}
	return Row{}, io.EOF
}

func (r *Reader) parse(text string) (Row, error) {
	var off float64
	var size int64
	var key, body string
	if r.jsonl {
		var j struct {
			Offset  *float64 `json:"offset_ms"`
			Size    *int64   `json:"size"`
			Key     *string  `json:"key"`
			Payload *string  `json:"payload"`
		}
		d := json.NewDecoder(strings.NewReader(text))
		d.DisallowUnknownFields()
		if err := d.Decode(&j); err != nil || j.Offset == nil || (j.Size == nil && j.Payload == nil) {
			return Row{}, fmt.Errorf(`expected {"offset_ms": 12.5, "size": 1024, "key": "k1", "payload": "base64"} (key optional; size or payload), got %q`, clip(text))
		}
		off = *j.Offset
		if j.Size != nil {
			size = *j.Size
		}
		if j.Key != nil {
			key = *j.Key
		}
		if j.Payload != nil {
			body = *j.Payload
		}
	} else {
		fs := strings.Split(text, ",")
		if len(fs) < 2 || len(fs) > 4 {
			return Row{}, fmt.Errorf("expected offset_ms,size[,key[,payload]], got %q", clip(text))
		}
		var err error
		if off, err = strconv.ParseFloat(strings.TrimSpace(fs[0]), 64); err != nil {
			return Row{}, fmt.Errorf("offset_ms %q is not a number", clip(fs[0]))
		}
		if f := strings.TrimSpace(fs[1]); f != "" || len(fs) < 4 {
			if size, err = strconv.ParseInt(f, 10, 64); err != nil {
				return Row{}, fmt.Errorf("size %q is not a whole number of bytes", clip(fs[1]))
			}
		}
		if len(fs) >= 3 {
			key = strings.TrimSpace(fs[2])
		}
		if len(fs) == 4 {
			body = strings.TrimSpace(fs[3])
		}
	}
	var payload []byte
	if body != "" {
		var err error
		if payload, err = base64.StdEncoding.DecodeString(body); err != nil {
			return Row{}, fmt.Errorf("the payload is not base64 (standard, padded): %v", err)
		}
		if size != 0 && size != int64(len(payload)) {
			return Row{}, fmt.Errorf("size %d, but the payload holds %d bytes (leave size empty or 0 to take the payload's)", size, len(payload))
		}
		size = int64(len(payload))
	}
	switch {
	case math.IsNaN(off) || off < 0 || off > float64(math.MaxInt64/int64(time.Millisecond)):
		return Row{}, fmt.Errorf("offset_ms %v is not a time from the recording's start (0 or more)", off)
	case payload == nil && size == 0:
		return Row{}, errors.New("neither a size nor a payload")
	case payload != nil && len(payload) == 0:
		return Row{}, errors.New("an empty payload")
	case payload != nil && size > MaxSize:
		return Row{}, fmt.Errorf("a payload of %d bytes; at most 64 MB", size)
	case payload == nil && (size < MinSize || size > MaxSize):
		return Row{}, fmt.Errorf("size %d is outside %d bytes to 64 MB (the header with the intended send time, the largest message)", size, MinSize)
	case len(key) > MaxKey:
		return Row{}, fmt.Errorf("a key of %d bytes; at most %d", len(key), MaxKey)
	case strings.IndexFunc(key, func(c rune) bool { return !unicode.IsPrint(c) }) >= 0:
		return Row{}, fmt.Errorf("the key %q holds a control character", clip(key))
	}
	row := Row{Offset: time.Duration(off * float64(time.Millisecond)), Size: int(size), Payload: payload}
	if key != "" {
		row.Key = []byte(key)
	}
	return row, nil
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// Summary is what a whole recording holds, read once before anything connects.
type Summary struct {
	Rows    int64
	Last    time.Duration // the last row's offset
	MaxSize int
	// Sizes counts the rows of each size, while there are at most MaxSizes distinct ones
	// (nil beyond: a recording of many sizes is not kept size by size).
	Sizes map[int]int64
	// Payloads counts the rows that carry their payload (sent as recorded).
	Payloads int64
}

// MaxSizes bounds the distinct sizes a recording is measured by.
const MaxSizes = 100

// Check reads every row of the recording at path: its summary, or every problem found
// (at most MaxShown listed, the rest counted).
func Check(path, name string) (Summary, []string) {
	r, err := Open(path, name)
	if err != nil {
		return Summary{}, []string{err.Error()}
	}
	defer r.Close()
	s := Summary{Sizes: map[int]int64{}}
	var probs []string
	more := 0
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if len(probs) < MaxShown {
				probs = append(probs, err.Error())
			} else {
				more++
			}
			if errors.Is(err, ErrStop) {
				break
			}
			continue
		}
		s.Rows++
		s.Last, s.MaxSize = row.Offset, max(s.MaxSize, row.Size)
		if row.Payload != nil {
			s.Payloads++
		}
		if s.Sizes != nil {
			s.Sizes[row.Size]++
			if len(s.Sizes) > MaxSizes {
				s.Sizes = nil
			}
		}
	}
	if more > 0 {
		probs = append(probs, fmt.Sprintf("%s: %d more problems", name, more))
	}
	if s.Rows == 0 && len(probs) == 0 {
		probs = append(probs, fmt.Sprintf("%s: no rows", name))
	}
	return s, probs
}
