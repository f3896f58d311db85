package report

import (
	"crypto/sha256"
	"encoding/base64"
)

// The one page head and stylesheet of every page mqbench writes: report.html, the capacity
// search's search.html and compare.html. A page adds only its own rules (extraCSS).

// PageHead is the start of a page up to and with its header's heading: the document head with
// title, the page and chart styles, then extraCSS, and the heading followed by a verdict badge
// of class verdictCls (pass or fail), none when verdict is "" (a comparison judges nothing).
// title and heading are text; PageHead escapes them.
func PageHead(title, heading, verdictCls, verdict, extraCSS string) string {
	badge := ""
	if verdict != "" {
		badge = ` <span class="badge ` + verdictCls + `" id="verdict">` + verdict + `</span>`
	}
	return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">` + CSPMeta + `<meta name="viewport" content="width=device-width, initial-scale=1">
<title>` + Esc(title) + `</title>
<style>` + pageCSS + ChartCSS + extraCSS + `</style></head>
<body>
<header><h1>` + Esc(heading) + badge + `</h1>
`
}

// CSP is the report pages' Content-Security-Policy: nothing loads from anywhere, inline
// styles (the pages' CSS and SVG) and the one chart script, allowed by its hash, are all that
// runs. A report from a pull request's results folder is opened by a reviewer: text that got
// past escaping still could not run a script or send anything out.
var CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src " + scriptHash(ChartScript) +
	"; base-uri 'none'; form-action 'none'"

// CSPMeta is the tag that sets CSP; it comes first in the head, before any style or script.
var CSPMeta = `<meta http-equiv="Content-Security-Policy" content="` + CSP + `">`

// scriptHash is the CSP source that allows exactly the inline script s.
func scriptHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// pageCSS styles every page (PageHead); ChartCSS its charts.
const pageCSS = `
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1b1f;background:#f6f7f9;margin:0;padding:20px 24px 40px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:26px 0 8px}h2 small{font-weight:normal;color:#666;font-size:13px;margin-left:6px}h3{font-size:14px;margin:14px 0 6px;color:#333}
header p{margin:2px 0;color:#444}.muted{color:#888}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;font-size:12px;font-weight:600;vertical-align:middle;margin-left:6px}
.badge.pass{background:#e3f4e8;color:#1d6b34}.badge.fail{background:#fde4e4;color:#a11d1d}
.charts{display:flex;flex-direction:column;gap:14px;margin:8px 0}
ul.failed{background:#fde4e4;color:#a11d1d;font-weight:600;padding:8px 8px 8px 28px;border-radius:6px}
table{border-collapse:collapse;background:#fff;font-size:13px;margin:4px 0}
th,td{border:1px solid #e0e0e4;padding:3px 9px}th{background:#f0f1f4;font-weight:600;text-align:center}
table.num td{text-align:right}table.num td:first-child{text-align:left}
td.bad{background:#fde4e4;color:#a11d1d;font-weight:600}
tr.fail td,td.verdict.fail{color:#a11d1d;font-weight:600}td.verdict.pass,tr.pass td.verdict{color:#1d6b34}
section.cell{border-top:1px solid #dcdce2;margin-top:24px}
code{font:12px ui-monospace,Menlo,Consolas,monospace}
footer{margin-top:30px;color:#777;font-size:12px}
`
