package reference

import (
	"fmt"
	"io"
	"strings"
)

// Terminal layout: the table's widest cells wrap inside their column so a row stays within
// about 120 columns; descriptions follow their row, indented, wrapped at textWidth.
const (
	textWidth = 100
	indent    = "    "
)

// WriteIndex prints every broker on one line and the top-level scenario keys.
func WriteIndex(w io.Writer) error {
	p := printer{w: w}
	p.f("Brokers (broker.type); `explain BROKER` prints one broker's options:\n\n")
	rows := [][]string{}
	for _, b := range brokers {
		line := b.Summary
		if b.ModeKey != "" {
			line += "; " + b.ModeKey + ": " + modeNames(b)
		}
		rows = append(rows, []string{b.Name, line})
	}
	p.table(rows, []int{0, 0}, "  ")
	p.f("\nScenario keys:\n\n")
	rows = rows[:0]
	for _, k := range TopLevel {
		rows = append(rows, []string{k.Name, k.Meaning})
	}
	p.table(rows, []int{0, 0}, "  ")
	p.f("\nEvery option of every broker: docs/drivers.md; the scenario format: README.md, \"A scenario\".\n")
	return p.err
}

// WriteBroker prints one broker's reference: address and mode summary, the options table
// with each option's description under its row, and the example scenario.
func WriteBroker(w io.Writer, b Broker) error {
	p := printer{w: w}
	p.f("%s: %s\n", b.Name, b.Summary)
	p.wrapped(b.About, indent)
	p.f("\n")
	head := [][]string{
		{"url", b.DefaultURL + " when left out; " + b.URL + "; e.g. " + strings.Join(b.URLExamples, ", ")},
		{"destination", b.Destination},
	}
	for _, m := range b.Modes {
		label := "publishing"
		if m.Name != "" {
			label = b.ModeKey + " " + m.Name
		}
		line := "publish latency waits for " + m.AckMode
		if m.AckMode == "none" {
			line += " (fire-and-forget: no publish latency)"
		}
		if m.Promises {
			line += "; promises delivery, so mq_messages_lost: count==0 is a default threshold"
		}
		head = append(head, []string{label, line})
	}
	p.table(head, []int{0, textWidth - 16}, "  ")
	p.f("\nOptions of broker.%s (all optional; durations like 250ms, 10s, 1m):\n\n", b.Name)
	cols := []string{"KEY", "TYPE", "DEFAULT", "ALLOWED"}
	widths := []int{0, 17, 18, 26}
	if b.ModeKey != "" {
		cols = append(cols, "MODES")
		widths = append(widths, 16)
	}
	rows := [][]string{cols}
	for _, o := range b.Options {
		r := []string{o.Key, o.Type, dash(o.Default), dash(o.Allowed())}
		if b.ModeKey != "" {
			r = append(r, o.ModesText(b))
		}
		rows = append(rows, r)
	}
	colw := p.widths(rows, widths)
	p.row(rows[0], colw, "  ")
	for i, o := range b.Options {
		p.row(rows[i+1], colw, "  ")
		p.wrapped(o.Description, indent)
	}
	p.f("\nExample (%s):\n\n", b.Example)
	for _, l := range strings.Split(strings.TrimRight(b.ExampleYAML, "\n"), "\n") {
		p.f("%s\n", strings.TrimRight(indent+l, " "))
	}
	return p.err
}

func modeNames(b Broker) string {
	names := make([]string, len(b.Modes))
	for i, m := range b.Modes {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printer writes text and keeps the first error, so callers check once.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// wrapped prints s word-wrapped at textWidth, every line indented.
func (p *printer) wrapped(s, indent string) {
	for _, l := range wrap(s, textWidth-len(indent)) {
		p.f("%s%s\n", indent, l)
	}
}

// table prints rows as aligned columns; a cap of 0 leaves a column its widest cell.
func (p *printer) table(rows [][]string, caps []int, sep string) {
	w := p.widths(rows, caps)
	for _, r := range rows {
		p.row(r, w, sep)
	}
}

// widths returns each column's width: its widest cell, at most its cap (0 = no cap).
func (p *printer) widths(rows [][]string, caps []int) []int {
	w := make([]int, len(caps))
	for _, r := range rows {
		for i, c := range r {
			w[i] = max(w[i], len([]rune(c)))
		}
	}
	for i, c := range caps {
		if c > 0 {
			w[i] = min(w[i], c)
		}
	}
	return w
}

// row prints one table row; a cell wider than its column wraps onto the following lines.
func (p *printer) row(cells []string, widths []int, sep string) {
	lines := make([][]string, len(cells))
	height := 0
	for i, c := range cells {
		lines[i] = wrap(c, widths[i])
		height = max(height, len(lines[i]))
	}
	for l := 0; l < height; l++ {
		var b strings.Builder
		for i := range cells {
			cell := ""
			if l < len(lines[i]) {
				cell = lines[i][l]
			}
			if i < len(cells)-1 {
				cell += strings.Repeat(" ", widths[i]-len([]rune(cell))) + sep
			}
			b.WriteString(cell)
		}
		p.f("%s\n", strings.TrimRight(b.String(), " "))
	}
}

// wrap splits s into lines of at most width runes at spaces; a longer word gets a line
// of its own.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}
