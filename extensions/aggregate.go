package mqbench

// The "mqbench-influxdb" k6 output: what k6's built-in InfluxDB output sends, aggregated per
// second before it leaves the process.
//
// k6's built-in output (--out influxdb) writes one InfluxDB point per sample: at 20,000 msg/s
// that is ~58,000 points/s (two latencies per message plus nine samples per iteration), and on
// a 2-core machine the encoding and writing steal enough CPU from the load generator to move
// the very latencies being measured (see docs/influxdb-grafana.md for the figures). This
// output sees exactly the same samples (k6 hands every sample to every output; thresholds are
// evaluated inside k6 from the full stream, and summary.json keeps the full per-message HDR
// distribution either way) and writes, per metric, tag set and one-second window:
//
//   - counter: one point, value = sum of the window        (sum("value") per bucket: as raw)
//   - gauge:   one point, value = maximum of the window     (max("value") per bucket: as raw)
//   - rate:    one point, value = fraction of non-zero samples, plus field n = sample count
//   - trend:   one point per statistic, tagged stat=count|min|mean|max|p50|p90|p95|p99|p99.9|p99.99,
//     value = that statistic over the window's samples (exact: the samples are sorted, and
//     percentiles use InfluxQL's nearest-rank definition, so with one-second buckets a dashboard
//     gets the same number it would compute from raw points).
//
// Since mqbench sends k6 per-second aggregates by default (samples: aggregated), trend samples
// usually arrive with a stat tag already; those are written as they are, so this output and
// k6's built-in one then write the same points. It still aggregates raw samples (samples: raw).
//
// Points raw samples never carry the stat tag, so one InfluxQL query serves both outputs:
//
//	SELECT percentile("value", 99) FROM "mq_e2e_latency"
//	WHERE ("stat" = 'p99' OR "stat" = '') AND $timeFilter GROUP BY time($__interval)
//
// (a missing tag compares equal to ''). The volume no longer depends on the message rate: a
// handful of series × ~10 points per second.
//
// Configuration follows the built-in output, so switching is a matter of the output name:
// --out mqbench-influxdb=http://[user:pass@]host:8086/db?pushInterval=1s&… and the same
// K6_INFLUXDB_* environment variables (ADDR, DB, USERNAME, PASSWORD, INSECURE, RETENTION,
// PUSH_INTERVAL, TAGS_AS_FIELDS); the tags listed in TAGS_AS_FIELDS (default vu, iter, url) are
// dropped, since a per-second aggregate has no single value for them. Writes use the InfluxDB
// 1.x HTTP API (/write, /query), which InfluxDB 2.x and 3.x also serve for compatibility.

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"

	"github.com/sirupsen/logrus"
	"go.k6.io/k6/v2/metrics"
	"go.k6.io/k6/v2/output"
)

// AggOutputName is the name given to --out.
const AggOutputName = "mqbench-influxdb"

func init() {
	output.RegisterExtension(AggOutputName, NewAggOutput)
}

// NewAggOutput is the k6 output constructor behind --out mqbench-influxdb.
func NewAggOutput(p output.Params) (output.Output, error) { return newAggOutput(p) }

// aggStats are the statistics written for each trend window, in this order.
var aggStats = []struct {
	tag string
	p   float64 // percentile, or -1 for the non-percentile statistics handled by name
}{{"count", -1}, {"min", -1}, {"mean", -1}, {"max", -1}, {"p50", 50}, {"p90", 90}, {"p95", 95},
	{"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99}}

type aggConfig struct {
	addr, db, user, pass, retention string
	insecure                        bool
	pushInterval, window, grace     time.Duration
	dropTags                        map[string]bool
}

func defaultAggConfig() aggConfig {
	return aggConfig{
		addr: "http://127.0.0.1:8086", db: "k6",
		pushInterval: time.Second, window: time.Second, grace: time.Second,
		dropTags: map[string]bool{"vu": true, "iter": true, "url": true},
	}
}

// parseAggConfig applies, in k6's order, the environment and then the --out argument.
func parseAggConfig(env map[string]string, arg string) (aggConfig, error) {
	c := defaultAggConfig()
	var errs []error
	dur := func(name, v string) time.Duration {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s: %q is not a positive duration", name, v))
		}
		return d
	}
	tagList := func(v string) map[string]bool {
		m := map[string]bool{}
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				name, _, _ := strings.Cut(t, ":") // k6 allows name:type
				m[name] = true
			}
		}
		return m
	}
	if v := env["K6_INFLUXDB_ADDR"]; v != "" {
		c.addr = strings.TrimRight(v, "/")
	}
	if v := env["K6_INFLUXDB_DB"]; v != "" {
		c.db = v
	}
	if v, ok := env["K6_INFLUXDB_USERNAME"]; ok {
		c.user = v
	}
	if v, ok := env["K6_INFLUXDB_PASSWORD"]; ok {
		c.pass = v
	}
	if v := env["K6_INFLUXDB_RETENTION"]; v != "" {
		c.retention = v
	}
	if v := env["K6_INFLUXDB_INSECURE"]; v != "" {
		c.insecure, _ = strconv.ParseBool(v)
	}
	if v := env["K6_INFLUXDB_PUSH_INTERVAL"]; v != "" {
		c.pushInterval = dur("K6_INFLUXDB_PUSH_INTERVAL", v)
	}
	if v := env["K6_INFLUXDB_TAGS_AS_FIELDS"]; v != "" {
		c.dropTags = tagList(v)
	}
	if arg != "" {
		u, err := url.Parse(arg)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return c, fmt.Errorf("%s: want http(s)://[user:pass@]host:port/database, got %q", AggOutputName, arg)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return c, fmt.Errorf("%s: scheme %q: only http and https are supported", AggOutputName, u.Scheme)
		}
		c.addr = u.Scheme + "://" + u.Host
		if db := strings.Trim(u.Path, "/"); db != "" {
			c.db = db
		}
		if u.User != nil {
			c.user = u.User.Username()
			c.pass, _ = u.User.Password()
		}
		for k, vs := range u.Query() {
			v := vs[0]
			switch k {
			case "pushInterval":
				c.pushInterval = dur(k, v)
			case "window":
				c.window = dur(k, v)
			case "grace":
				c.grace = dur(k, v)
			case "retention":
				c.retention = v
			case "insecure":
				c.insecure = v == "true"
			case "tagsAsFields":
				c.dropTags = tagList(strings.Join(vs, ","))
			default:
				errs = append(errs, fmt.Errorf("unknown query parameter %q (known: pushInterval, window, grace, retention, insecure, tagsAsFields)", k))
			}
		}
	}
	if c.window > 0 && c.window%time.Millisecond != 0 {
		errs = append(errs, fmt.Errorf("window %s: must be a whole number of milliseconds", c.window))
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("%s: %w", AggOutputName, err)
	}
	return c, nil
}

// acc accumulates one series over one window.
type acc struct {
	typ           metrics.MetricType
	n             int
	sum, min, max float64
	last          float64
	lastT         int64
	nonZero       int
	vals          []float64 // trends only
}

func (a *acc) add(s metrics.Sample) {
	v, t := s.Value, s.Time.UnixNano()
	if a.n == 0 || v < a.min {
		a.min = v
	}
	if a.n == 0 || v > a.max {
		a.max = v
	}
	if a.n == 0 || t >= a.lastT {
		a.last, a.lastT = v, t
	}
	a.n++
	a.sum += v
	if v != 0 {
		a.nonZero++
	}
	if a.typ == metrics.Trend {
		a.vals = append(a.vals, v)
	}
}

// percentile is InfluxQL's nearest rank on sorted values (clamped instead of null at the edges).
func percentile(sorted []float64, p float64) float64 {
	i := int(math.Floor(float64(len(sorted))*p/100+0.5)) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

type aggOutput struct {
	cfg    aggConfig
	logger logrus.FieldLogger
	client *http.Client

	mu        sync.Mutex
	windows   map[int64]map[metrics.TimeSeries]*acc // window start (unix ns) → series
	watermark int64                                 // windows before it are written; later samples go here
	tagCache  map[*metrics.TagSet]string            // line-protocol tag part of a tag set
	pool      [][]float64                           // trend value slices to reuse

	flusher *output.PeriodicFlusher
	pending [][]byte // bodies whose write failed, retried on the next flush (bounded)

	// Totals for the log line at Stop (and for tests).
	points, writes, failed int64
}

func newAggOutput(p output.Params) (*aggOutput, error) {
	cfg, err := parseAggConfig(p.Environment, p.ConfigArgument)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the user asked for it
	}
	return &aggOutput{
		cfg:      cfg,
		logger:   p.Logger.WithField("output", AggOutputName),
		client:   &http.Client{Timeout: 10 * time.Second, Transport: tr},
		windows:  map[int64]map[metrics.TimeSeries]*acc{},
		tagCache: map[*metrics.TagSet]string{},
	}, nil
}

// Description is shown by k6 run under "output:".
func (o *aggOutput) Description() string {
	return fmt.Sprintf("%s (%s, db %s, %s windows)", AggOutputName, o.cfg.addr, o.cfg.db, o.cfg.window)
}

// Start creates the database (harmless when it exists or when the user may not) and starts
// the periodic flush.
func (o *aggOutput) Start() error {
	if err := o.query("CREATE DATABASE " + quoteIdent(o.cfg.db)); err != nil {
		o.logger.WithError(err).Debug("could not create the database; most likely harmless")
	}
	pf, err := output.NewPeriodicFlusher(o.cfg.pushInterval, func() { o.flush(false) })
	if err != nil {
		return err
	}
	o.flusher = pf
	return nil
}

// Stop writes every open window.
func (o *aggOutput) Stop() error {
	o.flusher.Stop()
	o.flush(true)
	o.logger.WithFields(logrus.Fields{"points": o.points, "writes": o.writes, "failed": o.failed}).Debug("stopped")
	if len(o.pending) > 0 {
		return fmt.Errorf("%s: %d batches could not be written to %s", AggOutputName, len(o.pending), o.cfg.addr)
	}
	return nil
}

// AddMetricSamples aggregates in place: a map lookup and an append per sample, never I/O.
func (o *aggOutput) AddMetricSamples(containers []metrics.SampleContainer) {
	w := o.cfg.window.Nanoseconds()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range containers {
		for _, s := range c.GetSamples() {
			t := s.Time.UnixNano()
			start := t - ((t%w)+w)%w
			if start < o.watermark { // its window is already written: count it in the oldest open one
				start = o.watermark
			}
			win := o.windows[start]
			if win == nil {
				win = map[metrics.TimeSeries]*acc{}
				o.windows[start] = win
			}
			a := win[s.TimeSeries]
			if a == nil {
				a = &acc{typ: s.Metric.Type}
				if a.typ == metrics.Trend && len(o.pool) > 0 {
					a.vals, o.pool = o.pool[len(o.pool)-1][:0], o.pool[:len(o.pool)-1]
				}
				win[s.TimeSeries] = a
			}
			a.add(s)
		}
	}
}

// flush writes the windows that closed more than grace ago (all of them when final).
func (o *aggOutput) flush(final bool) {
	w := o.cfg.window.Nanoseconds()
	limit := time.Now().Add(-o.cfg.grace).UnixNano() - w // windows starting at or before it are closed
	o.mu.Lock()
	var starts []int64
	for s := range o.windows {
		if final || s <= limit {
			starts = append(starts, s)
		}
	}
	slices.Sort(starts)
	taken := make([]map[metrics.TimeSeries]*acc, len(starts))
	for i, s := range starts {
		taken[i] = o.windows[s]
		delete(o.windows, s)
		o.watermark = max(o.watermark, s+w)
	}
	o.mu.Unlock()

	var body bytes.Buffer
	n := 0
	for i, s := range starts {
		n += o.encode(&body, s, taken[i])
	}
	if n > 0 {
		o.pending = append(o.pending, body.Bytes())
	}
	// Retry what failed before, oldest first; keep at most ~2 minutes of batches.
	for len(o.pending) > 0 {
		if err := o.write(o.pending[0]); err != nil {
			o.failed++
			o.logger.WithError(err).Warn("could not write to InfluxDB; will retry on the next flush")
			if len(o.pending) > 120 {
				o.pending = o.pending[1:]
				o.logger.Error("dropping the oldest aggregated batch: InfluxDB has been failing for too long")
			}
			break
		}
		o.writes++
		o.pending = o.pending[1:]
	}
	o.points += int64(n)
}

// encode appends the window's points in line protocol and returns how many it wrote.
func (o *aggOutput) encode(b *bytes.Buffer, start int64, series map[metrics.TimeSeries]*acc) int {
	ts := " " + strconv.FormatInt(start, 10) + "\n"
	keys := make([]metrics.TimeSeries, 0, len(series))
	for k := range series {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { // deterministic output
		if keys[i].Metric.Name != keys[j].Metric.Name {
			return keys[i].Metric.Name < keys[j].Metric.Name
		}
		return o.tags(keys[i].Tags) < o.tags(keys[j].Tags)
	})
	n := 0
	point := func(k metrics.TimeSeries, extraTag string, fields string) {
		b.WriteString(escape(k.Metric.Name, ", "))
		b.WriteString(o.tags(k.Tags))
		b.WriteString(extraTag)
		b.WriteByte(' ')
		b.WriteString(fields)
		b.WriteString(ts)
		n++
	}
	for _, k := range keys {
		a := series[k]
		switch a.typ {
		case metrics.Counter:
			point(k, "", field("value", a.sum))
		case metrics.Gauge: // the peak, not the last: a backlog spike inside the second counts
			point(k, "", field("value", a.max)+","+field("last", a.last))
		case metrics.Rate:
			point(k, "", field("value", float64(a.nonZero)/float64(a.n))+",n="+strconv.Itoa(a.n)+"i")
		case metrics.Trend:
			if st, pre := k.Tags.Get(catalog.StatTag); pre {
				// Already a per-second statistic (mqbench's default aggregated samples):
				// written as it is, one point per window (tags() leaves stat out of the key).
				point(k, ",stat="+escape(st, ",= "), field("value", a.last))
				break
			}
			slices.Sort(a.vals)
			for _, st := range aggStats {
				var v float64
				switch {
				case st.p >= 0:
					v = percentile(a.vals, st.p)
				case st.tag == "count":
					v = float64(a.n)
				case st.tag == "min":
					v = a.min
				case st.tag == "max":
					v = a.max
				case st.tag == "mean":
					v = a.sum / float64(a.n)
				}
				point(k, ",stat="+st.tag, field("value", v))
			}
			if cap(a.vals) <= 1<<20 && len(o.pool) < 64 {
				o.mu.Lock()
				o.pool = append(o.pool, a.vals)
				o.mu.Unlock()
			}
			a.vals = nil
		}
	}
	return n
}

// tags returns ",k=v,…" for a tag set (sorted keys, dropped tags left out), cached per set.
func (o *aggOutput) tags(ts *metrics.TagSet) string {
	if s, ok := o.tagCache[ts]; ok {
		return s
	}
	m := ts.Map()
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if !o.cfg.dropTags[k] && v != "" && k != "stat" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var sb strings.Builder
	for _, k := range keys {
		sb.WriteByte(',')
		sb.WriteString(escape(k, ",= "))
		sb.WriteByte('=')
		sb.WriteString(escape(m[k], ",= "))
	}
	o.tagCache[ts] = sb.String()
	return sb.String()
}

func field(name string, v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	return name + "=" + strconv.FormatFloat(v, 'g', -1, 64)
}

// escape backslash-escapes the characters line protocol requires for the element.
func escape(s, chars string) string {
	if !strings.ContainsAny(s, chars+"\\") {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		if strings.ContainsRune(chars, r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func (o *aggOutput) write(body []byte) error {
	q := url.Values{"db": {o.cfg.db}, "precision": {"ns"}}
	if o.cfg.retention != "" {
		q.Set("rp", o.cfg.retention)
	}
	return o.do(http.MethodPost, "/write", q, bytes.NewReader(body))
}

func (o *aggOutput) query(stmt string) error {
	return o.do(http.MethodPost, "/query", url.Values{"q": {stmt}}, nil)
}

func (o *aggOutput) do(method, path string, q url.Values, body io.Reader) error {
	req, err := http.NewRequest(method, o.cfg.addr+path+"?"+q.Encode(), body)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "k6-"+AggOutputName)
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	if o.cfg.user != "" || o.cfg.pass != "" {
		req.SetBasicAuth(o.cfg.user, o.cfg.pass)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
