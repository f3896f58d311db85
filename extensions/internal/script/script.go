// Package script holds the k6 entry script of every mqbench run, once: `k6 x mqbench run`
// feeds it to k6, the k8s generator puts it in the runners' ConfigMap, and lib/mqbench.js
// (for `k6 run` from a clone) is a link to this file.
package script

import _ "embed"

// Source is mqbench.js: k6's lifecycle wired to the Go module, nothing per message.
//
//go:embed mqbench.js
var Source []byte

// Name is the file name the script has wherever it is written out.
const Name = "mqbench.js"

// WebDashboard is the k6 web dashboard layout for mqbench's metrics (lib/web-dashboard.json
// links to it): each statistic of the per-second aggregates on its own, as k6's own layout,
// which mixes them, cannot show them (docs/web-dashboard.md).
//
//go:embed web-dashboard.json
var WebDashboard []byte

// WebDashboardName is the layout's file name wherever it is written out.
const WebDashboardName = "web-dashboard.json"
