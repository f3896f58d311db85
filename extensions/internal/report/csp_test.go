package report

import (
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

var (
	scriptRe = regexp.MustCompile(`(?s)<script([^>]*)>(.*?)</script>`)
	cspRe    = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`)
	onAttrRe = regexp.MustCompile(`(?i)<[a-z][^>]*\son[a-z]+\s*=`)
)

// CheckCSP says what is wrong with a report page's Content-Security-Policy: it must come in
// the head before any style or script, allow nothing from anywhere (default-src 'none'),
// and allow exactly the page's inline scripts by hash (no 'unsafe-inline' script, no
// handler attributes). A page opened from a results folder of a pull request then runs no
// script but its own, whatever the run's text holds.
func CheckCSP(page string) []string {
	var bad []string
	m := cspRe.FindStringSubmatchIndex(page)
	if m == nil {
		return []string{"no Content-Security-Policy meta tag"}
	}
	policy := page[m[2]:m[3]]
	if head := page[:m[0]]; strings.Contains(head, "<style") || strings.Contains(head, "<script") || !strings.Contains(head, "<head>") {
		bad = append(bad, "the policy does not come first in the head")
	}
	for _, want := range []string{"default-src 'none'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(policy, want) {
			bad = append(bad, "the policy lacks "+want)
		}
	}
	script := ""
	for _, d := range strings.Split(policy, ";") {
		if f := strings.Fields(d); len(f) > 0 && f[0] == "script-src" {
			script = d
		}
	}
	if strings.Contains(script, "unsafe") {
		bad = append(bad, "script-src allows unsafe sources: "+script)
	}
	for _, s := range scriptRe.FindAllStringSubmatch(page, -1) {
		if strings.TrimSpace(s[1]) != "" {
			bad = append(bad, "a script with attributes: "+s[1])
		}
		sum := sha256.Sum256([]byte(s[2]))
		if !strings.Contains(script, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") {
			bad = append(bad, "an inline script whose hash the policy does not list")
		}
	}
	if onAttrRe.MatchString(page) {
		bad = append(bad, "an event handler attribute")
	}
	return bad
}

func TestReportCSP(t *testing.T) {
	s := sample()
	s.Description = `<script>alert(1)</script><img src=x onerror=alert(1)>`
	for _, p := range CheckCSP(HTML(s, nil)) {
		t.Error("report.html: " + p)
	}
}

// Bidi controls in a run's text (a scenario name, a broker's error) do not reach the page:
// U+202E would show "txt.exe" as "exe.txt".
func TestEscDropsBidi(t *testing.T) {
	if got := Esc("a\u202eb\u2066c\u200f"); got != "abc" {
		t.Errorf("Esc = %q", got)
	}
}

// junit.xml, shown by CI servers, drops bidi controls as report.html does.
func TestJUnitDropsBidi(t *testing.T) {
	s := sample()
	s.Scenario = "evil\u202etxt.exe"
	if got := JUnit(s); strings.ContainsRune(got, 0x202e) {
		t.Errorf("junit.xml keeps U+202E")
	}
}
