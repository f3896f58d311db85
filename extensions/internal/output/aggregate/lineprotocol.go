package aggregate

import (
	"bytes"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"go.k6.io/k6/v2/metrics"
)

// statTag marks a trend sample that is already a per-second statistic: the tag mqbench's
// aggregated samples carry (internal/jsmodule/samples.go), kept out of the series key.
const statTag = catalog.StatTag

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
			if st, pre := k.Tags.Get(statTag); pre {
				// Already a per-second statistic (mqbench's default aggregated samples):
				// written as it is, one point per window (tags() leaves stat out of the key).
				point(k, ",stat="+escape(st, ",= "), field("value", a.last))
				break
			}
			slices.Sort(a.vals)
			for _, st := range aggStats {
				point(k, ",stat="+st.tag, field("value", a.stat(st.tag, st.p)))
			}
			o.recycle(a)
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
		if !o.cfg.dropTags[k] && v != "" && k != statTag {
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
