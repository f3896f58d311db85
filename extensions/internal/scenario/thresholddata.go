package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/header"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// No data is not a pass: a threshold that gets no samples fails the run. These checks refuse,
// before any broker is touched, the thresholds the scenario itself guarantees no data: a tag
// filter that selects no cell (or holds a value of the wrong type for its tag) and a metric
// that no cell it judges produces (no acknowledgements, a closed loop, the compact header).

// filterTags are the tags mqbench's samples and verdicts carry (catalog.CellTags, and k6's
// scenario tag, which selects a cell by its publish or consume scenario).
var filterTags = []string{"cell", "size", "rate", "scenario", "broker", "mq_scenario", verdict.StageTag}

// stageMetrics are the distributions a profile keeps per named stage (a stage filter's).
var stageMetrics = []string{catalog.E2ELatency, catalog.E2EIntendedLatency, catalog.ScheduleLag}

// checkThresholdData refuses every threshold the scenario guarantees no data.
func (d *decoder) checkThresholdData(s *Scenario) {
	if len(s.Cells) == 0 {
		return
	}
	for _, t := range s.Thresholds {
		d.thresholdData(s, t, "thresholds", s.Cells)
	}
	for i, c := range s.Cells {
		for _, t := range c.Thresholds {
			d.thresholdData(s, t, fmt.Sprintf("matrix[%d].thresholds", i), s.Cells[i:i+1])
		}
	}
}

// thresholdData checks one threshold. Without a filter it is judged in each of cells (the
// plan adds {cell:id}); with one, once over the cells the filter selects.
func (d *decoder) thresholdData(s *Scenario, t Threshold, at string, cells []Cell) {
	path := at + "." + t.Metric
	g := metricKeyRE.FindStringSubmatch(t.Metric)
	if g == nil {
		return // reported by the parser
	}
	m, known := catalog.Find(g[1])
	if !known || (g[2] != "" && checkFilter(g[2]) != "") {
		return // reported by the parser
	}
	const never = "; the threshold could never be judged (no data fails the run)"
	if why := unmeasuredBy(s, m.Name); why != "" {
		d.errorf(path, "%s gets no samples: %s%s", m.Name, why, never)
		return
	}
	if g[2] == "" {
		for _, c := range cells {
			if why := unmeasured(s, m.Name, c); why != "" {
				d.errorf(path, "%s gets no samples in cell %s: %s%s", m.Name, c.ID, why, never)
				return
			}
		}
		return
	}
	_, filter, _ := verdict.ParseKey(t.Metric)
	if _, ok := filter[verdict.StageTag]; ok && !slices.Contains(stageMetrics, m.Name) {
		d.errorf(path, "tag filter %s: a stage filter applies to %s (the distributions kept per stage), not %s", g[2], strings.Join(stageMetrics, ", "), m.Name)
		return
	}
	mq := !slices.ContainsFunc(catalog.BuiltinThresholdMetrics, func(b catalog.Metric) bool { return b.Name == m.Name })
	keys := make([]string, 0, len(filter))
	for k := range filter {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if msg := filterValue(s, k, filter[k], mq); msg != "" {
			d.errorf(path, "tag filter %s: %s%s", g[2], msg, never)
			return
		}
	}
	var whys []string
	for _, c := range s.Cells {
		if selects(s, c, filter) {
			whys = append(whys, unmeasured(s, m.Name, c))
		}
	}
	switch {
	case len(whys) == 0:
		d.errorf(path, "tag filter %s selects no cell (no cell has all of these tags)%s", g[2], never)
	case !slices.Contains(whys, ""):
		d.errorf(path, "%s gets no samples in the cells tag filter %s selects: %s%s", m.Name, g[2], whys[0], never)
	}
}

// filterValue says what is wrong with one tag of a filter: a tag mqbench's samples do not
// carry (mq: an mqbench metric; k6's own metrics carry k6's tags too), a value of the wrong
// type, or a value no cell has.
func filterValue(s *Scenario, tag, v string, mq bool) string {
	var have []string
	for _, c := range s.Cells {
		have = append(have, cellTag(s, c, tag)...)
	}
	switch tag {
	case "size":
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: strTag, Value: v}
		if _, _, msg := parseSize(n); msg != "" && v != SizeMixLabel {
			return fmt.Sprintf("size takes a payload size as the matrix writes it (%s), and this value is not a size", strings.Join(uniq(have), ", "))
		}
	case "rate":
		if r, err := strconv.Atoi(v); v != RateMax && v != RateStages && (err != nil || r < 1) {
			return fmt.Sprintf("rate takes messages per second, max or stages, as the matrix writes it (%s), and this value is none of them", strings.Join(uniq(have), ", "))
		}
	case verdict.StageTag:
		if !slices.Contains(have, v) {
			return fmt.Sprintf("no cell has a stage named %s (named stages here: %s)", v, strings.Join(uniq(append(have, "none")[:max(len(have), 1)]), ", "))
		}
	case "cell", "scenario", "broker", "mq_scenario":
	default:
		if !mq {
			return "" // k6's own metrics carry tags mqbench does not set
		}
		return fmt.Sprintf("mqbench's samples carry no %s tag (tags: %s)", tag, strings.Join(filterTags, ", "))
	}
	if !slices.Contains(have, v) {
		return fmt.Sprintf("no cell is tagged %s:%s (its values here: %s)", tag, v, strings.Join(uniq(have), ", "))
	}
	return ""
}

// cellTag is the values a cell's samples carry for a filter tag (scenario: its publish and
// consume scenarios).
func cellTag(s *Scenario, c Cell, tag string) []string {
	switch tag {
	case "cell":
		return []string{c.ID}
	case "size":
		return []string{c.SizeLabel}
	case "rate":
		return []string{c.RateLabel()}
	case "scenario":
		return []string{catalog.PublishScenario(c.ID), catalog.ConsumeScenario(c.ID)}
	case "broker":
		return []string{s.Broker.Type}
	case "mq_scenario":
		return []string{s.Name}
	case verdict.StageTag:
		names := []string{} // not nil: a cell without the stage is not selected
		for _, st := range c.Stages {
			if st.Name != "" {
				names = append(names, st.Name)
			}
		}
		return names
	}
	return nil
}

// selects reports whether the filter selects cell c (tags mqbench does not set are k6's:
// not judged here).
func selects(s *Scenario, c Cell, filter map[string]string) bool {
	for k, v := range filter {
		if vals := cellTag(s, c, k); vals != nil && !slices.Contains(vals, v) {
			return false
		}
	}
	return true
}

// unmeasuredBy says why a metric never gets a sample with this scenario's broker options, or
// "" when it may. The ack mode is the driver's own word (driver.NoAck).
func unmeasuredBy(s *Scenario, metric string) string {
	if metric != catalog.PublishLatency {
		return ""
	}
	if o, ok := s.Broker.Options.(driver.Options); ok && o != nil && o.AckMode() == driver.NoAck {
		return fmt.Sprintf("%s with these options acknowledges no publish (ack mode %s), so no publish latency is measured", s.Broker.Type, driver.NoAck)
	}
	return ""
}

// unmeasured says why a metric never gets a sample in cell c, or "" when it may.
func unmeasured(s *Scenario, metric string, c Cell) string {
	switch metric {
	case catalog.PublishLatency:
		if c.Producers == 0 {
			return "it sends nothing (producers: 0)"
		}
	case catalog.ScheduleLag:
		if c.Max {
			return "rate: max is a closed loop, with no schedule to lag"
		}
		if c.Producers == 0 {
			return "it sends nothing (producers: 0)"
		}
	case catalog.E2EIntendedLatency:
		if c.Max {
			return "rate: max is a closed loop, with no intended send times"
		}
		if s.CompactStamp(c.Size) {
			return fmt.Sprintf("its %s payloads carry the compact header, without the intended send time (%d bytes or more carry it)", c.SizeLabel, header.Size)
		}
	}
	return ""
}

// uniq keeps the first of each value, in order.
func uniq(vs []string) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
