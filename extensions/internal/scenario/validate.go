package scenario

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/payload"
)

// Bounds of the format. They are generous for real benchmarks and exist to catch typos
// (an extra zero) before a run hammers a broker or exhausts the load generator.
const (
	maxConnections = 10_000
	maxBatch       = 10_000
	maxVUs         = 5_000
	maxRate        = 2_000_000 // messages per second per cell
	maxCells       = 100
	minDuration    = time.Second // shorter cells have too few samples for tail percentiles
	maxDrain       = 10 * time.Minute
	// maxBytesPerSecond bounds size × rate of a cell: 100 Gbit/s, beyond what one load
	// generator's link (or loopback on most machines) carries; more is a typo, not a test.
	maxBytesPerSecond = 12.5e9
	defaultDrain      = 2 * time.Second
)

// How fixed-rate iterations are started on time (Workload.Pacing).
const (
	PacingPrecise = "precise"
	PacingTimer   = "timer"
)

// What k6 receives (Scenario.Samples).
const (
	SamplesAggregated = "aggregated"
	SamplesRaw        = "raw"
)

var scenarioNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

var cellNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// build turns the decoded file into a Scenario, applying defaults and recording every
// semantic problem. The result is only returned to callers when no problem was recorded.
func (d *decoder) build(raw *rawScenario, file string) *Scenario {
	s := &Scenario{File: file, Name: raw.Name, Description: raw.Description}
	d.checkName(raw.Name, file)
	s.Broker = d.broker(&raw.Broker)
	s.Workload = d.workload(&raw.Workload, file, len(raw.Matrix))
	s.Cells = d.cells(raw.Matrix, s.Workload)
	d.checkRunLength(s)
	s.Thresholds = d.thresholds(&raw.Thresholds, "thresholds")
	s.Validity.AllowDroppedIterations = raw.Validity.AllowDroppedIterations
	s.Samples = d.oneOf("samples", raw.Samples, SamplesAggregated, SamplesAggregated, SamplesRaw)
	s.Faults = d.faults(&raw.Faults, s.Cells, s.Broker)
	d.checkDestination(s)
	d.checkMessageLimit(s)
	d.checkRequestReply(s)
	d.checkStamp(s)
	d.checkTemplate(s)
	d.checkBacklog(s)
	d.checkConsumerRate(s)
	d.checkProducerOnly(s)
	d.checkThresholdData(s) // thresholddata.go
	d.checkSpread(s)
	d.checkHandoff(s)
	s.Search = d.search(&raw.Search, s)
	s.Distributed = d.distributed(&raw.Distributed, s)
	return s
}

// checkName ties the scenario to its file so `make run SCENARIO=x` and results/x/ agree.
func (d *decoder) checkName(name, file string) {
	switch {
	case !d.set("name"):
		d.missing("name")
	case !d.usable("name"):
	case name == "":
		d.errorf("name", "must not be empty")
	case !scenarioNameRE.MatchString(name):
		// The name becomes the results directory and a tag on every sample.
		d.errorf("name", "name %q must be 1-64 characters of letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	case file != "":
		stem := filepath.Base(file)
		for _, ext := range []string{".yaml", ".yml"} {
			stem = strings.TrimSuffix(stem, ext)
		}
		if name != stem {
			d.errorf("name", "name %q must equal the file name stem %q", name, stem)
		}
	}
}

func (d *decoder) broker(rb *rawBroker) Broker {
	b := Broker{Type: rb.Type, URL: rb.URL}
	if !d.set("broker") {
		d.missing("broker")
		return b
	}
	if d.bad["broker"] {
		return b // not a mapping: already reported, and its fields cannot be judged
	}
	var spec driver.Spec
	known := false
	switch {
	case !d.set("broker.type"):
		d.missing("broker.type")
	case d.usable("broker.type"):
		sp, err := driver.Lookup(rb.Type)
		if err != nil {
			d.errorf("broker.type", "%v", err)
		} else {
			spec, known = sp, true
		}
	}

	if d.usable("broker.url") {
		switch {
		case strings.TrimSpace(rb.URL) == "":
			d.errorf("broker.url", "must not be empty (leave url out for the broker's default)")
		case strings.ContainsFunc(rb.URL, unicode.IsSpace):
			d.errorf("broker.url", "must not contain whitespace")
		case rb.URL == "embedded" && known && rb.Type != "nats":
			d.errorf("broker.url", "url \"embedded\" is only available for nats (an in-process NATS server), not %s", rb.Type)
		default:
			// ${VAR} was expanded before decoding (env.go).
			url := rb.URL
			b.URL = url
			// Scheme, host, port and form are the driver's to judge, offline: a typo is a
			// scenario error, not an unreachable or refusing broker.
			if known && spec.CheckURL != nil && url != "embedded" {
				if err := spec.CheckURL(url); err != nil {
					d.errorf("broker.url", "%s", strings.TrimPrefix(err.Error(), rb.Type+": "))
				}
			}
		}
	} else if !d.set("broker.url") && known {
		b.URL = spec.DefaultURL
	}

	valid := []string{"type", "url"}
	if known {
		valid = append(valid, rb.Type)
	} else {
		valid = append(valid, driver.Names()...)
	}
	names := make([]string, 0, len(rb.Blocks))
	for name := range rb.Blocks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fp := "broker." + name
		switch {
		case known && name == rb.Type:
		case slices.Contains(driver.Names(), name):
			if known {
				d.add(d.keys[fp], fp, "options block for %s, but broker.type is %s", name, rb.Type)
			}
		default:
			d.unknown(d.keys[fp], fp, valid)
		}
	}
	if known {
		b.Options = d.options(spec, rb.Type, rb.Blocks[rb.Type])
	}
	return b
}

// options decodes the driver's block strictly into its options struct, then lets the
// driver fill defaults and judge the values; its field errors become located problems.
func (d *decoder) options(spec driver.Spec, typ string, block *yaml.Node) driver.Options {
	base := "broker." + typ
	if spec.NewOptions == nil {
		if block != nil {
			d.errorf(base, "broker %s takes no options", typ)
		}
		return nil
	}
	opts := spec.NewOptions()
	rv := reflect.ValueOf(opts)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		d.errorf(base, "internal error: driver %s options are %T, not a pointer to a struct", typ, opts)
		return nil
	}
	if block != nil {
		d.decode(block, rv.Elem(), base)
	}
	opts.Defaults()
	relativeFiles(rv.Elem(), filepath.Dir(d.file))
	errs := opts.Validate()
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Field < errs[j].Field })
	for _, fe := range errs {
		fp := join(base, fe.Field)
		switch {
		case d.bad[fp]:
			// already reported as a decoding problem
		case d.set(fp):
			d.errorf(fp, "%s", fe.Msg)
		case d.keys[base] != nil:
			d.add(d.keys[base], fp, "%s", fe.Msg)
		default:
			d.add(d.keys["broker"], fp, "%s", fe.Msg)
		}
	}
	return opts
}

func (d *decoder) workload(rw *rawWorkload, file string, cells int) Workload {
	const p = "workload"
	if !d.set(p) {
		d.missing(p)
	}
	w := Workload{Destination: rw.Destination}
	switch {
	case !d.set(p + ".destination"):
		if d.usable(p) {
			d.missing(p + ".destination")
		}
	case !d.usable(p + ".destination"):
	case rw.Destination == "":
		d.errorf(p+".destination", "must not be empty")
	case strings.ContainsFunc(rw.Destination, unicode.IsSpace):
		d.errorf(p+".destination", "must not contain whitespace, got %q", rw.Destination)
	}
	w.Pattern = d.oneOf(p+".pattern", rw.Pattern, PatternOneWay, PatternOneWay, PatternRequestReply)
	w.Destinations = d.intIn(p+".destinations", rw.Destinations, 1, 1, maxDestinations)
	w.Subscriptions = d.intIn(p+".subscriptions", rw.Subscriptions, 1, 1, maxSubscriptions)
	w.Producers = d.intIn(p+".producers", rw.Producers, 1, 1, maxConnections)
	w.Consumers = d.intIn(p+".consumers", rw.Consumers, 1, 0, maxConnections)
	w.Batch = d.intIn(p+".batch", rw.Batch, 1, 1, maxBatch)
	w.Warmup = d.durIn(p+".warmup", rw.Warmup, 0, 0, 0)
	w.Duration = d.durIn(p+".duration", rw.Duration, 0, minDuration, 0)
	if !d.set(p+".duration") && d.usable(p) && !everyCellTimed(d, cells) && !d.set("search") { // a search's steps last search.step
		d.missing(p + ".duration")
	}
	w.Drain = d.durIn(p+".drain", rw.Drain, defaultDrain, 0, maxDrain)
	w.VUs = d.intIn(p+".vus", rw.VUs, 0, 0, maxVUs)
	w.MaxVUs = d.intIn(p+".max_vus", rw.MaxVUs, 0, 0, maxVUs)
	d.vusPair(p, w.VUs, w.MaxVUs)
	w.Pacing = d.oneOf(p+".pacing", rw.Pacing, PacingPrecise, PacingPrecise, PacingTimer)
	w.ConsumerRate = d.consumerRate(p+".consumer_rate", rw.ConsumerRate, 0)
	w.Payload = d.payload(&rw.Payload, file)
	return w
}

func (d *decoder) payload(rp *rawPayload, file string) Payload {
	const p = "workload.payload"
	d.fileNames() // every *_file too: the broker's block was decoded before the workload
	pl := Payload{Content: d.oneOf(p+".content", rp.Content, "random", "random", "zeros", "file", "template")}
	fromFile := pl.Content == "file" || pl.Content == "template"
	pl.Key, pl.Keys = d.messageKeys(&rp.Key, p+".key")
	pl.Compressibility = d.compressibility(&rp.Compressibility, p+".compressibility", pl.Content)
	pl.Stamp = d.oneOf(p+".stamp", rp.Stamp, "", StampBody, StampHeader) // unset: chosen by checkStamp
	switch {
	case !fromFile:
		if d.set(p + ".file") {
			d.errorf(p+".file", "only applies when content is file or template")
		}
	case !d.set(p + ".file"):
		d.add(d.where(p+".content"), p+".file", "required when content is %s", pl.Content)
	case !d.usable(p + ".file"):
	case rp.File == "":
		d.errorf(p+".file", "must not be empty")
	default:
		// Relative to the scenario, not the working directory, so a scenario and its
		// payload can be moved (or run from CI's checkout root) together.
		pl.File = rp.File
		if !filepath.IsAbs(pl.File) {
			pl.File = filepath.Join(filepath.Dir(file), pl.File)
		}
		if strings.ContainsFunc(rp.File, unicode.IsControl) {
			break // fileNames reported it
		}
		// Opened, never read: a FIFO or a device is refused from its mode.
		if msg := payload.Unreadable(pl.File); msg != "" {
			d.errorf(p+".file", "cannot read payload file %s: %s", pl.File, msg)
		} else if _, in, err := payload.Inside(pl.File, filepath.Dir(file)); err != nil || !in {
			// Bodies go to the broker the scenario names: a file from outside the
			// scenario's folder could be a secret (/proc/self/environ, a credentials file).
			d.errorf(p+".file", "must be in the scenario's folder or below it (symlinks resolved): the payload is sent to the broker")
		} else if pl.Content == "template" {
			pl.Template = d.template(p+".file", pl.File)
		}
	}
	return pl
}

// intIn returns the integer at path, or def when the file does not set it, recording a
// problem when it is outside lo..hi.
func (d *decoder) intIn(path string, v, def, lo, hi int) int {
	if !d.usable(path) {
		return def
	}
	if v < lo || v > hi {
		d.errorf(path, "must be between %d and %d, got %d", lo, hi, v)
	}
	return v
}

// durIn is intIn for durations; hi == 0 means no upper bound.
func (d *decoder) durIn(path string, v, def, lo, hi time.Duration) time.Duration {
	if !d.usable(path) {
		return def
	}
	got := d.vals[path].Value
	switch {
	case v < lo && lo == 0:
		d.errorf(path, "must not be negative, got %s", got)
	case v < lo:
		d.errorf(path, "must be at least %s, got %s", fmtDuration(lo), got)
	case hi > 0 && v > hi:
		d.errorf(path, "must be at most %s, got %s", fmtDuration(hi), got)
	}
	return v
}

// oneOf returns the string at path, or def when unset, recording a problem when it is not
// one of valid.
func (d *decoder) oneOf(path, v, def string, valid ...string) string {
	if !d.usable(path) {
		return def
	}
	if !slices.Contains(valid, v) {
		msg := fmt.Sprintf("must be one of %s, got %q", strings.Join(valid, ", "), v)
		if s := closest(v, valid); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		d.errorf(path, "%s", msg)
	}
	return v
}

// fmtDuration drops Go's trailing zero units: 10m rather than 10m0s.
func fmtDuration(t time.Duration) string {
	s := t.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// maxMessages bounds a cell's message count (a typo guard, like maxRate).
const maxMessages = 1_000_000_000
