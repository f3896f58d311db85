// Package doclinks checks the project's Markdown links: every relative link names a file
// that exists, and every #anchor a heading of the page it points at (GitHub's slug), so
// moving a page or renaming a section cannot leave a dead link behind.
package doclinks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

var (
	// inlineLink is [text](target "title"); the target may be <bracketed>.
	inlineLink = regexp.MustCompile(`\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)`)
	// refDef is a reference definition: [label]: target.
	refDef = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*(\S+)`)
	// htmlAnchor is an explicit anchor: <a id="x"> or <a name="x">.
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	heading    = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	mdLinkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// Broken is one link that does not resolve.
type Broken struct {
	Page   string // relative to the root given to Check
	Line   int
	Target string
	Why    string
}

// Pages lists the Markdown pages under root that are checked: README.md, CONTRIBUTING.md,
// docs/*.md and examples/**/*.md.
func Pages(root string) ([]string, error) {
	pages := []string{}
	for _, f := range []string{"README.md", "CONTRIBUTING.md"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			pages = append(pages, f)
		}
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		pages = append(pages, filepath.Join("docs", filepath.Base(d)))
	}
	err = filepath.WalkDir(filepath.Join(root, "examples"), func(p string, e os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return filepath.SkipAll
			}
			return err
		}
		if !e.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			pages = append(pages, rel)
		}
		return nil
	})
	sort.Strings(pages)
	return pages, err
}

// Check resolves every relative link of the pages (paths relative to root) and returns
// the broken ones.
func Check(root string, pages []string) ([]Broken, error) {
	var broken []Broken
	anchors := map[string]map[string]bool{} // page (cleaned, relative to root) → its anchors
	anchorsOf := func(page string) (map[string]bool, error) {
		if a, ok := anchors[page]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, err
		}
		a := Anchors(string(b))
		anchors[page] = a
		return a, nil
	}
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, err
		}
		for _, l := range links(string(b)) {
			target := l.target
			if strings.HasPrefix(target, "<") {
				target = strings.Trim(target, "<>")
			}
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := filepath.Clean(page)
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), file)
				if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
					broken = append(broken, Broken{Page: page, Line: l.line, Target: target, Why: "no such file"})
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(dest, ".md") {
				continue // a folder, or a file GitHub shows without headings (#L10 in code)
			}
			a, err := anchorsOf(dest)
			if err != nil {
				return nil, err
			}
			if !a[strings.ToLower(anchor)] {
				broken = append(broken, Broken{Page: page, Line: l.line, Target: target, Why: fmt.Sprintf("no heading with anchor #%s in %s", anchor, filepath.ToSlash(dest))})
			}
		}
	}
	return broken, nil
}

type link struct {
	target string
	line   int
}

// links lists a page's link targets outside code blocks and code spans.
func links(text string) []link {
	var out []link
	proseLines(text, func(n int, line string) {
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{m[1], n + 1})
		}
		for _, m := range refDef.FindAllStringSubmatch(line, -1) {
			out = append(out, link{m[1], n + 1})
		}
	})
	return out
}

// proseLines calls f with each line outside fenced code blocks and its 0-based number.
func proseLines(text string, f func(n int, line string)) {
	fence := ""
	for n, line := range strings.Split(text, "\n") {
		if f := fenceOf(line); f != "" {
			switch {
			case fence == "":
				fence = f
				continue
			case strings.HasPrefix(strings.TrimSpace(line), fence):
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		f(n, line)
	}
}

// fenceOf returns the fence (``` or ~~~) a line opens or closes, "" when none.
func fenceOf(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f
		}
	}
	return ""
}

// Anchors lists the anchors of a page: its headings' GitHub slugs (a repeated heading gets
// -1, -2, …) and explicit <a id> / <a name> anchors.
func Anchors(text string) map[string]bool {
	out := map[string]bool{}
	counts := map[string]int{}
	proseLines(text, func(_ int, line string) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[strings.ToLower(m[1])] = true
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			return
		}
		s := Slug(m[1])
		if c := counts[s]; c > 0 {
			counts[s]++
			s = fmt.Sprintf("%s-%d", s, c)
		} else {
			counts[s] = 1
		}
		out[s] = true
	})
	return out
}

// Slug is GitHub's anchor for a heading's text: link text kept, lower case, punctuation
// dropped (letters, digits, _, - and spaces stay), each space a -.
func Slug(h string) string {
	h = mdLinkText.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
