package itest

// The Prometheus dashboards (grafana/dashboards/prometheus/) against a real Prometheus holding
// real runs: every variable and every panel query is executed as Grafana would execute it
// (template variables, $__range and $__rate_interval substituted; instant queries at the
// range's end, range queries over it) and must return series that carry the labels the
// query groups by, with the runs' own values. Grafana itself does not install here: its
// rendering is the one thing not tested.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

type promDashboard struct {
	UID        string `json:"uid"`
	Title      string `json:"title"`
	Templating struct {
		List []struct {
			Type       string  `json:"type"`
			Name       string  `json:"name"`
			Query      any     `json:"query"`
			Datasource *gDSRef `json:"datasource"`
			AllValue   string  `json:"allValue"`
			IncludeAll bool    `json:"includeAll"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		ID          int     `json:"id"`
		Type        string  `json:"type"`
		Title       string  `json:"title"`
		Description string  `json:"description"`
		Datasource  *gDSRef `json:"datasource"`
		Targets     []struct {
			RefID   string `json:"refId"`
			Expr    string `json:"expr"`
			Instant bool   `json:"instant"`
		} `json:"targets"`
	} `json:"panels"`
}

// promRateInterval is Grafana's $__rate_interval for the provisioned data source: four times
// its scrape interval (timeInterval 5s, the output's default push interval).
const promRateInterval = "20s"

var promDashboardUIDs = map[string]string{"mqbench-prom-run.json": "mqbench-prom-run", "mqbench-prom-compare.json": "mqbench-prom-compare"}

// checkPromDashboards runs the run dashboard over each run and the comparison over both.
func checkPromDashboards(t *testing.T, p prom, a, b run) {
	dir := filepath.Join(repoRoot(t), "grafana", "dashboards", "prometheus")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != len(promDashboardUIDs) {
		t.Fatalf("%s holds %d dashboards, want %d", dir, len(files), len(promDashboardUIDs))
	}
	from := time.Now()
	for _, r := range []run{a, b} {
		for _, c := range r.summary.Cells {
			if ts, err := time.Parse(time.RFC3339Nano, c.StartedAt); err == nil && ts.Before(from) {
				from = ts
			}
		}
	}
	from = from.Add(-10 * time.Second)
	for _, f := range files {
		var d promDashboard
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if want := promDashboardUIDs[filepath.Base(f)]; d.UID != want {
			t.Errorf("%s: uid %q, want %q", f, d.UID, want)
		}
		t.Run(d.UID, func(t *testing.T) {
			if d.UID == "mqbench-prom-compare" {
				for _, e := range checkPromDashboard(t, p, d, []run{a, b}, from) {
					t.Errorf("%s: no series for the two runs", e)
				}
				return
			}
			// Each run alone: a panel may be empty for one broker (NATS core has no publish
			// acknowledgements), never for both.
			empty := map[string]int{}
			for _, r := range []run{a, b} {
				t.Run(r.summary.Broker.Type, func(t *testing.T) {
					for _, e := range checkPromDashboard(t, p, d, []run{r}, from) {
						empty[e]++
					}
				})
			}
			for e, n := range empty {
				if n == 2 {
					t.Errorf("%s: no series for either run", e)
				}
			}
		})
	}
}

// checkPromDashboard resolves the dashboard's variables for runs and executes every target;
// it returns the targets that found no series.
func checkPromDashboard(t *testing.T, p prom, d promDashboard, runs []run, from time.Time) (empty []string) {
	to := time.Now()
	var testids, cells, scenarios []string
	for _, r := range runs {
		testids = append(testids, r.summary.Scenario+"-"+r.summary.RunID)
		scenarios = append(scenarios, r.summary.Scenario)
		for _, c := range r.summary.Cells {
			cells = append(cells, c.ID)
		}
	}
	vars := map[string]string{"run": promRegex(testids), "scenario": promRegex(scenarios), "broker": ".*", "cell": ".*",
		"__range": strconv.Itoa(int(to.Sub(from).Seconds())+1) + "s", "__rate_interval": promRateInterval, "__interval": "1s"}
	for _, v := range d.Templating.List {
		if v.Type == "datasource" {
			if v.Query != "prometheus" {
				t.Errorf("datasource variable for %v, want prometheus", v.Query)
			}
			continue
		}
		if v.Datasource == nil || v.Datasource.UID != "${datasource}" || v.IncludeAll && v.AllValue != ".*" {
			t.Errorf("$%s: want a query on ${datasource}, All as .*: %+v", v.Name, v)
		}
		q, _ := v.Query.(map[string]any)
		expr, _ := q["query"].(string)
		values := promLabelValues(t, p, substitutePromVars(t, expr, vars))
		want := map[string][]string{"run": testids, "cell": cells, "scenario": scenarios}[v.Name]
		for _, w := range want {
			if !slices.Contains(values, w) {
				t.Errorf("$%s resolves to %v: %q missing", v.Name, values, w)
			}
		}
	}
	byRe := regexp.MustCompile(`by \(([^)]*)\)`)
	for _, pn := range d.Panels {
		if pn.Type == "row" {
			continue
		}
		if strings.TrimSpace(pn.Description) == "" || pn.Datasource == nil || pn.Datasource.UID != "${datasource}" || len(pn.Targets) == 0 {
			t.Errorf("panel %q: wants a description, datasource ${datasource} and a query", pn.Title)
		}
		for _, tg := range pn.Targets {
			expr := substitutePromVars(t, tg.Expr, vars)
			var res []promSeries
			var err error
			if tg.Instant {
				err = p.api("/api/v1/query", url.Values{"query": {expr}, "time": {unixArg(to)}}, &res)
			} else {
				err = p.api("/api/v1/query_range", url.Values{"query": {expr}, "start": {unixArg(from)}, "end": {unixArg(to)}, "step": {"1"}}, &res)
			}
			if err != nil {
				t.Errorf("panel %q %s: %s: %v", pn.Title, tg.RefID, expr, err)
				continue
			}
			if len(res) == 0 {
				t.Logf("panel %q %s: no series for %v: %s", pn.Title, tg.RefID, testids, expr)
				empty = append(empty, fmt.Sprintf("panel %q %s", pn.Title, tg.RefID))
				continue
			}
			var labels []string
			if m := byRe.FindStringSubmatch(tg.Expr); m != nil {
				for _, l := range strings.Split(m[1], ",") {
					labels = append(labels, strings.TrimSpace(l))
				}
			}
			for _, s := range res {
				for _, l := range labels {
					if s.Metric[l] == "" {
						t.Errorf("panel %q %s: a series without %s: %v", pn.Title, tg.RefID, l, s.Metric)
					}
				}
				if c, ok := s.Metric["cell"]; ok && !slices.Contains(cells, c) {
					t.Errorf("panel %q %s: cell %q is not the runs' (%v)", pn.Title, tg.RefID, c, cells)
				}
				if id, ok := s.Metric["testid"]; ok && !slices.Contains(testids, id) {
					t.Errorf("panel %q %s: run %q is not one of %v", pn.Title, tg.RefID, id, testids)
				}
			}
		}
	}
	return empty
}

// substitutePromVars replaces $name and ${name} as Grafana does before sending a query.
func substitutePromVars(t *testing.T, q string, vars map[string]string) string {
	t.Helper()
	re := regexp.MustCompile(`\$\{(\w+)\}|\$(\w+)`)
	return re.ReplaceAllStringFunc(q, func(m string) string {
		sub := re.FindStringSubmatch(m)
		v, ok := vars[sub[1]+sub[2]]
		if !ok {
			t.Errorf("%s: unknown variable %s", q, m)
		}
		return v
	})
}

// promRegex is how Grafana formats a multi-value variable for Prometheus: (a|b), regex-quoted.
func promRegex(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = regexp.QuoteMeta(v)
	}
	if len(q) == 1 {
		return q[0]
	}
	return "(" + strings.Join(q, "|") + ")"
}

var labelValuesRe = regexp.MustCompile(`^label_values\((.*),\s*(\w+)\)$`)

// promLabelValues executes Grafana's label_values(selector, label) variable query.
func promLabelValues(t *testing.T, p prom, q string) []string {
	t.Helper()
	m := labelValuesRe.FindStringSubmatch(q)
	if m == nil {
		t.Fatalf("variable query %q: want label_values(selector, label)", q)
	}
	var out []string
	if err := p.api("/api/v1/label/"+m[2]+"/values", url.Values{"match[]": {m[1]}}, &out); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func unixArg(t time.Time) string { return fmt.Sprintf("%.3f", float64(t.UnixMilli())/1e3) }
