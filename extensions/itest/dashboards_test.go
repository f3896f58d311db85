package itest

// Results into InfluxDB and the Grafana dashboards over them.
//
// TestDashboardsAgainstInfluxDB runs a short real scenario twice, once through k6's built-in
// InfluxDB output (--out influxdb) and once through mqbench's aggregating output
// (--out mqbench-influxdb), into a fresh database of a real InfluxDB; then it executes every
// panel query of every dashboard in grafana/dashboards/ exactly as Grafana would (raw InfluxQL
// with the template variables, $timeFilter and $__interval substituted) and fails on any query
// that errors or returns no value for that run. MQBENCH_INFLUXDB_URL (default
// http://127.0.0.1:8086) names the InfluxDB; `scripts/brokers/start.sh influxdb` starts one.
//
// TestDashboardJSON and TestDockerCompose need no broker: the dashboards must be valid for
// Grafana's file provisioning, and docker/compose.yaml must pin every image by digest, bind
// every port to loopback and mount the provisioning; `docker compose config` checks it too when
// the compose plugin exists.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// ---- dashboard model (the part of Grafana's JSON the tests read) --------------------------------

type gDashboard struct {
	UID           string   `json:"uid"`
	Title         string   `json:"title"`
	SchemaVersion int      `json:"schemaVersion"`
	Panels        []gPanel `json:"panels"`
	Templating    struct {
		List []gVariable `json:"list"`
	} `json:"templating"`
	file string
}

type gPanel struct {
	ID          int                       `json:"id"`
	Type        string                    `json:"type"`
	Title       string                    `json:"title"`
	Description string                    `json:"description"`
	Datasource  *gDSRef                   `json:"datasource"`
	GridPos     *struct{ H, W, X, Y int } `json:"gridPos"`
	Interval    string                    `json:"interval"`
	Targets     []gTarget                 `json:"targets"`
	Panels      []gPanel                  `json:"panels"` // collapsed rows
}

type gDSRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type gTarget struct {
	RefID      string  `json:"refId"`
	Datasource *gDSRef `json:"datasource"`
	RawQuery   bool    `json:"rawQuery"`
	Query      string  `json:"query"`
}

type gVariable struct {
	Type       string  `json:"type"`
	Name       string  `json:"name"`
	Query      any     `json:"query"`
	Datasource *gDSRef `json:"datasource"`
	IncludeAll bool    `json:"includeAll"`
	AllValue   string  `json:"allValue"`
	Multi      bool    `json:"multi"`
}

// The dashboards shipped, by fixed uid.
var wantDashboards = map[string]string{"mqbench-run.json": "mqbench-run", "mqbench-compare.json": "mqbench-compare"}

func loadDashboards(t *testing.T) []gDashboard {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "grafana", "dashboards", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards in grafana/dashboards (%v)", err)
	}
	var out []gDashboard
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d gDashboard
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: not valid JSON: %v", f, err)
		}
		d.file = filepath.Base(f)
		out = append(out, d)
	}
	return out
}

// allPanels flattens rows (including collapsed rows' panels).
func allPanels(ps []gPanel) []gPanel {
	var out []gPanel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, allPanels(p.Panels)...)
	}
	return out
}

// TestDashboardJSON: what Grafana's file provisioning needs, and what the issue asks of every
// dashboard (fixed uid, datasource variable, a description on every panel, raw InfluxQL).
func TestDashboardJSON(t *testing.T) {
	dashboards := loadDashboards(t)
	uids := map[string]string{}
	for _, d := range dashboards {
		t.Run(d.file, func(t *testing.T) {
			if want, ok := wantDashboards[d.file]; !ok || d.UID != want {
				t.Errorf("uid %q: want the fixed uid %q", d.UID, want)
			}
			if prev, dup := uids[d.UID]; dup {
				t.Errorf("uid %q also used by %s", d.UID, prev)
			}
			uids[d.UID] = d.file
			if d.Title == "" || d.SchemaVersion < 36 {
				t.Errorf("title %q, schemaVersion %d: want a title and schemaVersion >= 36", d.Title, d.SchemaVersion)
			}
			vars := map[string]gVariable{}
			for _, v := range d.Templating.List {
				vars[v.Name] = v
			}
			if ds, ok := vars["datasource"]; !ok || ds.Type != "datasource" || ds.Query != "influxdb" {
				t.Errorf("want a datasource variable of type datasource for influxdb, got %+v", ds)
			}
			for _, name := range []string{"run", "scenario", "broker", "cell"} {
				v, ok := vars[name]
				if !ok {
					t.Errorf("no $%s variable", name)
					continue
				}
				if v.Type != "query" || v.Datasource == nil || v.Datasource.UID != "${datasource}" {
					t.Errorf("$%s: want a query variable on ${datasource}, got %+v", name, v)
				}
				if v.IncludeAll && v.AllValue != ".*" {
					t.Errorf("$%s: All must be the regex .* (queries use =~ /^$%s$/), got %q", name, name, v.AllValue)
				}
			}
			ids := map[int]bool{}
			queries := 0
			for _, p := range allPanels(d.Panels) {
				if ids[p.ID] {
					t.Errorf("panel id %d used twice", p.ID)
				}
				ids[p.ID] = true
				if p.GridPos == nil || p.GridPos.W <= 0 || p.GridPos.H <= 0 || p.GridPos.X+p.GridPos.W > 24 {
					t.Errorf("panel %q: bad gridPos %+v", p.Title, p.GridPos)
				}
				if p.Type == "row" {
					continue
				}
				if strings.TrimSpace(p.Description) == "" {
					t.Errorf("panel %q has no description", p.Title)
				}
				if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
					t.Errorf("panel %q: datasource must be ${datasource}, got %+v", p.Title, p.Datasource)
				}
				if len(p.Targets) == 0 {
					t.Errorf("panel %q has no query", p.Title)
				}
				for _, tg := range p.Targets {
					queries++
					if !tg.RawQuery || strings.TrimSpace(tg.Query) == "" {
						t.Errorf("panel %q target %s: want a raw InfluxQL query (rawQuery: true)", p.Title, tg.RefID)
					}
					if tg.Datasource == nil || tg.Datasource.UID != "${datasource}" {
						t.Errorf("panel %q target %s: datasource must be ${datasource}", p.Title, tg.RefID)
					}
					if strings.Contains(tg.Query, "$__interval") && p.Interval != "1s" {
						t.Errorf("panel %q: queries on $__interval need the panel's min interval 1s (got %q)", p.Title, p.Interval)
					}
					if strings.Contains(tg.Query, "FROM \"mq_") && !strings.Contains(tg.Query, "$run") {
						t.Errorf("panel %q target %s: not filtered by $run", p.Title, tg.RefID)
					}
				}
			}
			if queries == 0 {
				t.Error("no panel queries")
			}
		})
	}
	for file := range wantDashboards {
		if _, ok := uids[wantDashboards[file]]; !ok {
			t.Errorf("%s is missing from grafana/dashboards", file)
		}
	}
	// The provisioning points Grafana at the dashboards folder that compose mounts.
	var prov struct {
		Providers []struct {
			Folder  string
			Options struct{ Path string }
		}
	}
	readYAML(t, filepath.Join(repoRoot(t), "grafana", "provisioning", "dashboards", "mqbench.yaml"), &prov)
	if len(prov.Providers) != 1 || prov.Providers[0].Options.Path != grafanaDashboardsPath || prov.Providers[0].Folder == "" {
		t.Errorf("grafana/provisioning/dashboards/mqbench.yaml: want one provider with a folder reading %s, got %+v", grafanaDashboardsPath, prov)
	}
	var ds struct {
		Datasources []struct {
			UID, Type, URL string
			JSONData       map[string]any `yaml:"jsonData"`
		}
	}
	readYAML(t, filepath.Join(repoRoot(t), "grafana", "provisioning", "datasources", "influxdb.yaml"), &ds)
	if len(ds.Datasources) != 1 || ds.Datasources[0].Type != "influxdb" || ds.Datasources[0].JSONData["dbName"] != "k6" || ds.Datasources[0].JSONData["timeInterval"] != "1s" {
		t.Errorf("grafana/provisioning/datasources/influxdb.yaml: want one influxdb data source on database k6 with timeInterval 1s, got %+v", ds)
	}
}

const grafanaDashboardsPath = "/var/lib/grafana/dashboards/mqbench"

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// ---- InfluxDB ---------------------------------------------------------------------------------

type influx struct {
	t   *testing.T
	url string
	db  string
}

type influxResult struct {
	Results []struct {
		Error  string `json:"error"`
		Series []struct {
			Name    string            `json:"name"`
			Tags    map[string]string `json:"tags"`
			Columns []string          `json:"columns"`
			Values  [][]any           `json:"values"`
		} `json:"series"`
	} `json:"results"`
	Error string `json:"error"`
}

func (ix influx) query(q string) (influxResult, error) {
	form := url.Values{"q": {q}, "epoch": {"ms"}}
	if ix.db != "" {
		form.Set("db", ix.db)
	}
	resp, err := http.Post(ix.url+"/query", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		return influxResult{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r influxResult
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("HTTP %s: %s", resp.Status, b)
	}
	if r.Error != "" {
		return r, fmt.Errorf("%s", r.Error)
	}
	for _, res := range r.Results {
		if res.Error != "" {
			return r, fmt.Errorf("%s", res.Error)
		}
	}
	return r, nil
}

func (ix influx) mustQuery(q string) influxResult {
	ix.t.Helper()
	r, err := ix.query(q)
	if err != nil {
		ix.t.Fatalf("%s: %v", q, err)
	}
	return r
}

// sum returns sum("value") of a measurement for a testid (extra: more WHERE conditions).
func (ix influx) sum(measurement, testid, extra string) float64 {
	ix.t.Helper()
	r := ix.mustQuery(fmt.Sprintf(`SELECT sum("value") FROM %q WHERE "testid" = '%s'%s`, measurement, testid, extra))
	total := 0.0
	for _, res := range r.Results {
		for _, s := range res.Series {
			for _, v := range s.Values {
				if f, ok := v[1].(float64); ok {
					total += f
				}
			}
		}
	}
	return total
}

// points counts the points stored for a testid over every measurement.
func (ix influx) points(testid string) (total int, per map[string]int) {
	ix.t.Helper()
	per = map[string]int{}
	r := ix.mustQuery(fmt.Sprintf(`SELECT count("value") FROM /.*/ WHERE "testid" = '%s'`, testid))
	for _, res := range r.Results {
		for _, s := range res.Series {
			for _, v := range s.Values {
				if f, ok := v[1].(float64); ok {
					per[s.Name] += int(f)
					total += int(f)
				}
			}
		}
	}
	return total, per
}

// nonNull reports whether the result has a value other than time that is not null, and a
// short description of what came back.
func nonNull(r influxResult) (bool, string) {
	series, values := 0, 0
	found := false
	for _, res := range r.Results {
		for _, s := range res.Series {
			series++
			for _, row := range s.Values {
				values++
				for i, c := range s.Columns {
					if c != "time" && i < len(row) && row[i] != nil {
						found = true
					}
				}
			}
		}
	}
	return found, fmt.Sprintf("%d series, %d rows", series, values)
}

func influxURL(t *testing.T) string {
	return serviceURL(t, "InfluxDB", "MQBENCH_INFLUXDB_URL", "http://127.0.0.1:8086", "/ping", "influxdb")
}

// serviceURL is the URL of a service a test needs (env, else def), checked by a GET of ready:
// a test without it fails under MQBENCH_REQUIRE_BROKERS=1 and skips otherwise.
func serviceURL(t *testing.T, name, env, def, ready, broker string) string {
	t.Helper()
	u := strings.TrimRight(os.Getenv(env), "/")
	if u == "" {
		u = def
	}
	resp, err := http.Get(u + ready)
	if err == nil {
		resp.Body.Close()
	}
	if err != nil || resp.StatusCode/100 != 2 {
		msg := fmt.Sprintf("no %s at %s (%v): start one with scripts/brokers/start.sh %s, or set %s", name, u, err, broker, env)
		if os.Getenv("MQBENCH_REQUIRE_BROKERS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return u
}

// ---- Grafana's variable substitution, for InfluxQL ---------------------------------------------

// substitute does what Grafana does to a raw InfluxQL query before sending it: template
// variables (values used inside /^…$/ regexes, so regex-escaped unless they already are a
// regex such as ".*" or "(a|b)"), $timeFilter and the interval macros.
func substitute(q string, vars map[string]string, from, to time.Time, interval time.Duration) (string, error) {
	builtin := map[string]string{
		"timeFilter":      fmt.Sprintf("time >= %dms and time <= %dms", from.UnixMilli(), to.UnixMilli()),
		"__interval_ms":   strconv.FormatInt(interval.Milliseconds(), 10),
		"__interval":      interval.String(),
		"__timeFilter":    fmt.Sprintf("time >= %dms and time <= %dms", from.UnixMilli(), to.UnixMilli()),
		"__rate_interval": interval.String(),
	}
	var missing []string
	re := regexp.MustCompile(`\$\{(\w+)(?::\w+)?\}|\$(\w+)`)
	out := re.ReplaceAllStringFunc(q, func(m string) string {
		sub := re.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		if v, ok := builtin[name]; ok {
			return v
		}
		if v, ok := vars[name]; ok {
			return v
		}
		missing = append(missing, name)
		return m
	})
	if len(missing) > 0 {
		return out, fmt.Errorf("unknown variables %v", missing)
	}
	return out, nil
}

// regexValue formats values the way Grafana formats a variable used in an InfluxDB regex.
func regexValue(values ...string) string {
	if len(values) == 1 && values[0] == ".*" {
		return ".*"
	}
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = regexp.QuoteMeta(v)
	}
	if len(q) == 1 {
		return q[0]
	}
	return "(" + strings.Join(q, "|") + ")"
}

// checkDashboards executes every variable query and every panel query of every dashboard and
// fails on errors and on queries without a value. wantInVars: values a variable query must list.
func checkDashboards(t *testing.T, ix influx, vars map[string]string, wantInVars map[string][]string, from, to time.Time) {
	t.Helper()
	for _, d := range loadDashboards(t) {
		for _, interval := range []time.Duration{time.Second, 10 * time.Second} {
			for _, v := range d.Templating.List {
				q, ok := v.Query.(string)
				if v.Type != "query" || !ok {
					continue
				}
				sq, err := substitute(q, vars, from, to, interval)
				if err != nil {
					t.Errorf("%s variable $%s: %v", d.file, v.Name, err)
					continue
				}
				r, err := ix.query(sq)
				if err != nil {
					t.Errorf("%s variable $%s: %v\n%s", d.file, v.Name, err, sq)
					continue
				}
				got := map[string]bool{}
				for _, res := range r.Results {
					for _, s := range res.Series {
						for _, row := range s.Values {
							if len(row) > 1 {
								got[fmt.Sprint(row[1])] = true
							}
						}
					}
				}
				for _, w := range wantInVars[v.Name] {
					if !got[w] {
						t.Errorf("%s variable $%s does not offer %q (got %v)\n%s", d.file, v.Name, w, mapKeysSorted(got), sq)
					}
				}
			}
			for _, p := range allPanels(d.Panels) {
				for _, tg := range p.Targets {
					sq, err := substitute(tg.Query, vars, from, to, interval)
					if err != nil {
						t.Errorf("%s / %q / %s: %v", d.file, p.Title, tg.RefID, err)
						continue
					}
					r, err := ix.query(sq)
					if err != nil {
						t.Errorf("%s / %q / %s ($__interval=%s): query failed: %v\n%s", d.file, p.Title, tg.RefID, interval, err, sq)
						continue
					}
					if ok, what := nonNull(r); !ok {
						t.Errorf("%s / %q / %s ($__interval=%s): no data for this run (%s)\n%s", d.file, p.Title, tg.RefID, interval, what, sq)
					}
				}
			}
		}
	}
}

func mapKeysSorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestDashboardsAgainstInfluxDB: real runs into a real InfluxDB, then every dashboard query.
func TestDashboardsAgainstInfluxDB(t *testing.T) {
	waitTurn(t, 22*time.Second) // points counted, no timing judged: in the waiting tier
	k6Binary(t)                 // skips without MQBENCH_K6
	base := influxURL(t)
	db := fmt.Sprintf("mqbench_itest_%d", time.Now().UnixNano())
	ix := influx{t: t, url: base}
	ix.mustQuery(fmt.Sprintf("CREATE DATABASE %q", db))
	t.Cleanup(func() { _, _ = ix.query(fmt.Sprintf("DROP DATABASE %q", db)) })
	ix.db = db

	type runInfo struct {
		testid   string
		from, to time.Time
	}
	var runs []runInfo
	// k6's output with the default per-second aggregates, k6's output with one point per
	// message (MQ_SAMPLES=raw), and mqbench's aggregating output.
	for _, out := range []struct{ name, flag, samples string }{
		{"k6 influxdb output", "influxdb=" + base + "/" + db, ""},
		{"k6 influxdb output, raw samples", "influxdb=" + base + "/" + db, "raw"},
		{"mqbench-influxdb output", "mqbench-influxdb=" + base + "/" + db, ""},
	} {
		ok := t.Run(out.name, func(t *testing.T) {
			ix := ix
			ix.t = t
			start := time.Now()
			// MQ_SAMPLES through the run's environment: a test of the waiting tier is parallel
			r := runScenarioEnvTee(t, "extensions/itest/testdata/influx-dashboards.yaml", []string{"MQ_SAMPLES=" + out.samples}, nil, "--out", out.flag)
			end := time.Now()
			if r.code != 0 || r.summary == nil {
				t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
			}
			s := r.summary
			testid := s.Scenario + "-" + s.RunID
			var sent, received, e2eCount uint64
			for _, c := range s.Cells {
				sent += c.Sent
				received += c.Received
				e2eCount += uint64(c.E2ELatency.Count)
			}
			if sent == 0 || len(s.Cells) != 2 {
				t.Fatalf("nothing measured: %+v", s.Cells)
			}
			// Every mqbench metric arrived, with its tags: the counters add up to summary.json.
			if got := ix.sum("mq_messages_sent", testid, ""); got != float64(sent) {
				t.Errorf("InfluxDB sum(mq_messages_sent) = %v, summary.json sent = %d", got, sent)
			}
			if got := ix.sum("mq_messages_received", testid, ""); got != float64(received) {
				t.Errorf("InfluxDB sum(mq_messages_received) = %v, summary.json received = %d", got, received)
			}
			for _, c := range s.Cells {
				cellSent := ix.sum("mq_messages_sent", testid, fmt.Sprintf(` AND "cell" = '%s' AND "broker" = '%s' AND "size" != '' AND "rate" = '%d' AND "mq_scenario" = '%s' AND "scenario" = '%s_publish'`, c.ID, s.Broker.Type, c.Rate, s.Scenario, c.ID))
				if cellSent != float64(c.Sent) {
					t.Errorf("cell %s: sum(mq_messages_sent) with the cell's tags = %v, want %d", c.ID, cellSent, c.Sent)
				}
			}
			if dropped := ix.sum("dropped_iterations", testid, ""); dropped == 0 {
				t.Errorf("no dropped_iterations for this run: cell c2 is meant to force some (the dropped-iterations panels need them)")
			}
			total, per := ix.points(testid)
			secs := end.Sub(start).Seconds()
			t.Logf("%s: %d points stored for %s in a %.1f s run (%.0f points/s); %d e2e latency points for %d messages",
				out.name, total, testid, secs, float64(total)/secs, per["mq_e2e_latency"], e2eCount)
			if out.samples != "raw" {
				// Aggregated: the per-second counts add up to every measured message.
				if got := ix.sum("mq_e2e_latency", testid, ` AND "stat" = 'count'`); got != float64(e2eCount) {
					t.Errorf("aggregated e2e counts add up to %v, summary.json counted %d", got, e2eCount)
				}
			} else if per["mq_e2e_latency"] != int(e2eCount) {
				// InfluxDB keeps one point per series and timestamp: every sample of a consumer
				// batch is stamped 1 ns apart so none overwrites another.
				t.Errorf("%d of %d e2e latency samples reached InfluxDB as distinct points", per["mq_e2e_latency"], e2eCount)
			}
			from, to := start.Add(-time.Minute), end.Add(time.Minute)
			vars := map[string]string{"run": regexValue(testid), "scenario": regexValue(s.Scenario),
				"broker": regexValue(s.Broker.Type), "cell": ".*"}
			checkDashboards(t, ix, vars, map[string][]string{"run": {testid}, "scenario": {s.Scenario},
				"broker": {s.Broker.Type}, "cell": {"c1", "c2"}}, from, to)
			runs = append(runs, runInfo{testid, start, end})
		})
		if !ok {
			return
		}
	}
	// The comparison dashboard with both runs selected shows both, side by side.
	t.Run("compare both runs", func(t *testing.T) {
		ix := ix
		ix.t = t
		ids := []string{runs[0].testid, runs[2].testid}
		vars := map[string]string{"run": regexValue(ids...), "scenario": ".*", "broker": ".*", "cell": ".*"}
		from, to := runs[0].from.Add(-time.Minute), runs[2].to.Add(time.Minute)
		checkDashboards(t, ix, vars, map[string][]string{"run": ids}, from, to)
		for _, d := range loadDashboards(t) {
			if d.UID != "mqbench-compare" {
				continue
			}
			for _, p := range allPanels(d.Panels) {
				for _, tg := range p.Targets {
					if !strings.Contains(tg.Query, `"testid"`) || !strings.Contains(tg.Query, "GROUP BY") {
						continue
					}
					sq, _ := substitute(tg.Query, vars, from, to, time.Second)
					seen := map[string]bool{}
					for _, res := range ix.mustQuery(sq).Results {
						for _, s := range res.Series {
							seen[s.Tags["testid"]] = true
						}
					}
					if len(ids) > 0 && !(seen[ids[0]] && seen[ids[1]]) && strings.Contains(sq, `GROUP BY "testid"`) {
						t.Errorf("%q / %s: want rows for both runs %v, got %v", p.Title, tg.RefID, ids, mapKeysSorted(seen))
					}
				}
			}
		}
	})
}

// ---- docker/ ------------------------------------------------------------------------------------

var digestRef = regexp.MustCompile(`^[a-z0-9./_-]+:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}$`)

// TestDockerCompose validates docker/compose.yaml and docker/Dockerfile without a Docker
// engine: every image pinned by digest, every port on loopback, Grafana with the provisioning
// mounted and anonymous viewers; then `docker compose config` where the plugin exists.
func TestDockerCompose(t *testing.T) {
	root := repoRoot(t)
	composeFile := filepath.Join(root, "docker", "compose.yaml")
	var c struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Build       any               `yaml:"build"`
			Ports       []string          `yaml:"ports"`
			Volumes     []string          `yaml:"volumes"`
			Environment map[string]string `yaml:"environment"`
			Profiles    []string          `yaml:"profiles"`
			Healthcheck map[string]any    `yaml:"healthcheck"`
		} `yaml:"services"`
	}
	readYAML(t, composeFile, &c)
	for _, name := range []string{"kafka", "rabbitmq", "nats", "redis", "influxdb", "grafana", "k6"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("compose: no %s service", name)
		}
	}
	for name, s := range c.Services {
		if s.Image != "" && !digestRef.MatchString(s.Image) && s.Build == nil {
			t.Errorf("compose service %s: image %q is not pinned as name:tag@sha256:<digest>", name, s.Image)
		}
		if s.Image == "" && s.Build == nil {
			t.Errorf("compose service %s: neither image nor build", name)
		}
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("compose service %s: port %q is not bound to 127.0.0.1", name, p)
			}
		}
		if name != "k6" && s.Healthcheck == nil {
			t.Errorf("compose service %s: no healthcheck", name)
		}
	}
	g := c.Services["grafana"]
	mounts := map[string]string{}
	for _, v := range g.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 {
			mounts[parts[1]] = parts[0]
		}
	}
	for target, src := range map[string]string{"/etc/grafana/provisioning": "grafana/provisioning", grafanaDashboardsPath: "grafana/dashboards"} {
		got, ok := mounts[target]
		if !ok {
			t.Errorf("compose grafana: nothing mounted at %s", target)
			continue
		}
		if abs := filepath.Clean(filepath.Join(root, "docker", got)); abs != filepath.Join(root, src) {
			t.Errorf("compose grafana: %s mounts %s, want ../%s", target, got, src)
		}
	}
	for k, want := range map[string]string{"GF_AUTH_ANONYMOUS_ENABLED": "true", "GF_AUTH_ANONYMOUS_ORG_ROLE": "Viewer", "MQBENCH_INFLUXDB_URL": "http://influxdb:8086"} {
		if g.Environment[k] != want {
			t.Errorf("compose grafana: %s = %q, want %q", k, g.Environment[k], want)
		}
	}

	// The k6 image is built from the same pinned versions: a digest-pinned Go image whose Go is
	// at least extensions/go.mod's, and the module's own go.sum.
	df, err := os.ReadFile(filepath.Join(root, "docker", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]bool{}
	for _, line := range strings.Split(string(df), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.EqualFold(f[0], "FROM") {
			continue
		}
		if strings.HasPrefix(f[1], "--platform=") { // FROM --platform=$BUILDPLATFORM image AS name
			f = append(f[:1], f[2:]...)
		}
		img := f[1]
		if len(f) >= 4 && strings.EqualFold(f[2], "AS") {
			stages[f[3]] = true
		}
		if img != "scratch" && !stages[img] && !digestRef.MatchString(img) {
			t.Errorf("Dockerfile: FROM %s is not pinned by digest", img)
		}
	}
	if !strings.Contains(string(df), "go.sum") || !strings.Contains(string(df), "./cmd/k6") {
		t.Error("Dockerfile: should build ./cmd/k6 from extensions/go.mod and go.sum")
	}

	// The real thing, where it exists.
	switch {
	case exec.Command("docker", "compose", "version").Run() == nil:
		out, err := exec.Command("docker", "compose", "-f", composeFile, "config", "--quiet").CombinedOutput()
		if err != nil {
			t.Errorf("docker compose config: %v\n%s", err, out)
		}
	case exec.Command("docker-compose", "version").Run() == nil:
		out, err := exec.Command("docker-compose", "-f", composeFile, "config", "--quiet").CombinedOutput()
		if err != nil {
			t.Errorf("docker-compose config: %v\n%s", err, out)
		}
	default:
		t.Log("skipping `docker compose config`: neither the docker compose plugin nor docker-compose is installed; the checks above validated the file")
	}
}
