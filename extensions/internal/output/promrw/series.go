package promrw

import (
	"slices"
	"strings"
	"unicode/utf8"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
)

// Metric names are k6's (k6 prefixes its Prometheus output's names the same way, so Grafana's
// k6 dashboards read k6's own metrics from either output): k6_<metric>_total for counters,
// k6_<metric> for gauges, k6_<metric>_rate for rates, and k6_<metric>_seconds for time
// distributions (native histograms, or _bucket/_sum/_count with classic buckets).
const prefix = "k6_"

// droppedTags are tags that would make a series per VU or iteration (k6's default fields).
var droppedTags = map[string]bool{"vu": true, "iter": true, "stat": true, "url": true}

// metricName is name made a valid Prometheus metric name: characters outside
// [a-zA-Z0-9_:] become '_'.
func metricName(name string) string {
	return prefix + sanitize(name, true)
}

// labelName is a k6 tag name made a valid label name: characters outside [a-zA-Z0-9_]
// become '_', a leading digit gets a '_' before it, and the "__" prefix Prometheus keeps for
// itself becomes "tag__".
func labelName(tag string) string {
	n := sanitize(tag, false)
	if strings.HasPrefix(n, "__") {
		n = "tag" + n
	}
	return n
}

func sanitize(s string, colon bool) string {
	var b strings.Builder
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || (i > 0 && r >= '0' && r <= '9') || (colon && r == ':')
		if !ok && i == 0 && r >= '0' && r <= '9' {
			b.WriteByte('_')
			b.WriteRune(r)
			continue
		}
		if !ok {
			r = '_'
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// labelValue is a tag value as Prometheus stores it: any UTF-8 text as it is (quotes and
// newlines travel inside the protobuf, unescaped and intact); invalid UTF-8, which would make
// Prometheus refuse the whole request, is replaced.
func labelValue(v string) string {
	if utf8.ValidString(v) {
		return v
	}
	return strings.ToValidUTF8(v, "\uFFFD")
}

// labelSet is a series' labels, __name__ among them, sorted by name as remote write wants
// them (an upper-case tag sorts before __name__); tags that sanitize to the same name keep
// the first in tag-name order.
func labelSet(name string, tags map[string]string) []*prompb.Label {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		if !droppedTags[k] && tags[k] != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	seen := map[string]bool{"__name__": true}
	out := []*prompb.Label{{Name: "__name__", Value: name}}
	for _, k := range keys {
		n := labelName(k)
		if seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, &prompb.Label{Name: n, Value: labelValue(tags[k])})
	}
	slices.SortFunc(out, func(a, b *prompb.Label) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// key identifies a series by its labels.
func key(labels []*prompb.Label) string {
	var b strings.Builder
	for _, l := range labels {
		b.WriteString(l.Name)
		b.WriteByte(0xfe)
		b.WriteString(l.Value)
		b.WriteByte(0xff)
	}
	return b.String()
}

// withLabel returns labels with one more (or replaced), still sorted.
func withLabel(labels []*prompb.Label, name, value string) []*prompb.Label {
	out := make([]*prompb.Label, 0, len(labels)+1)
	for _, l := range labels {
		if l.Name != name {
			out = append(out, l)
		}
	}
	out = append(out, &prompb.Label{Name: name, Value: value})
	slices.SortFunc(out, func(a, b *prompb.Label) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// metricOf is the __name__ of labels.
func metricOf(labels []*prompb.Label) string {
	for _, l := range labels {
		if l.Name == "__name__" {
			return l.Value
		}
	}
	return ""
}
