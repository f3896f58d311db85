package itest

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rate profile on k6's ramping-arrival-rate: 100 → 2,000 msg/s over 20 s, then a spike to
// 4,000 held for 5 s, on in-process NATS. Every tick of the profile is sent (its integral,
// exactly), each second's sends are the profile's integral over that second within 2 %, nothing
// is dropped or lost, and the latency from intended send time stays within 200 µs of the
// end-to-end latency at p50: the intended times are k6's own ticks on the profile. The spike's
// own distribution holds exactly the messages it was to send, and a threshold filtered by
// stage is judged on it. Sequential: it judges timing on an otherwise idle machine.
func TestRateProfileFollowsItsStages(t *testing.T) {
	const yaml = `name: profile
broker: { type: nats, url: embedded }
workload: { destination: itest.profile, producers: 1, consumers: 1, warmup: 1s, drain: 2s, pacing: precise }
matrix:
  - name: ramp
    size: 1KB
    start_rate: 100
    stages:
      - { target: 2000, duration: 20s }
      - { target: 4000, duration: 1s }
      - { name: spike, target: 4000, duration: 5s }
thresholds:
  mq_e2e_latency{stage:spike}: ["p(99) < 500ms"]
`
	r := runShape(t, t.TempDir(), "profile", yaml, nil)
	c := r.summary.Cells[0]
	// The profile in seconds from the cell's start: the warm-up holds start_rate.
	type seg struct{ from, to, secs float64 }
	profile := []seg{{100, 100, 1}, {100, 2000, 20}, {2000, 4000, 1}, {4000, 4000, 5}}
	integral := func(t float64) float64 {
		area := 0.0
		for _, s := range profile {
			if t <= s.secs {
				return area + s.from*t + (s.to-s.from)*t*t/(2*s.secs)
			}
			area, t = area+(s.from+s.to)/2*s.secs, t-s.secs
		}
		return area
	}
	total := uint64(math.Round(integral(27)))
	switch {
	case c.Sent+c.SentWarmup != total:
		t.Errorf("sent %d (+%d in the warm-up), the profile's integral is %d", c.Sent, c.SentWarmup, total)
	case c.DroppedIterations != 0:
		t.Errorf("%v iterations dropped", c.DroppedIterations)
	case c.Ledger.Lost != 0 || c.Received != c.Sent:
		t.Errorf("sent %d, received %d, lost %d", c.Sent, c.Received, c.Ledger.Lost)
	}
	tl := readTimeline(t, r)
	for _, p := range tl.Points {
		if p.T < 1 || p.T+1 > 27 {
			continue // the first second (the clock's offset is learned there) and the drain
		}
		want := integral(p.T+1) - integral(p.T)
		if got := float64(p.Sent); math.Abs(got-want) > math.Max(0.02*want, 2) {
			t.Errorf("second %v: sent %v, the profile's integral over it is %.1f (more than 2%% apart)", p.T, got, want)
		}
	}
	e2e, intended := c.E2ELatency.P["p50"], c.E2EIntendedLatency.P["p50"]
	if intended < e2e || intended-e2e > 200 {
		t.Errorf("e2e p50 %.1f µs, from intended send time %.1f µs: want the second at most 200 µs above the first", e2e, intended)
	}
	// summary.json names the profile; report.html draws its target.
	var s struct {
		Cells []struct {
			Rate      int `json:"rate"`
			StartRate int `json:"start_rate"`
			Stages    []struct {
				Name   string  `json:"name"`
				Target int     `json:"target"`
				Secs   float64 `json:"duration_s"`
				E2E    *stats  `json:"e2e_latency_us"`
			} `json:"stages"`
		} `json:"cells"`
	}
	decodeSummary(t, r, &s)
	if got := s.Cells[0]; got.Rate != 4000 || got.StartRate != 100 || len(got.Stages) != 3 || got.Stages[2].Name != "spike" || got.Stages[2].Secs != 5 {
		t.Errorf("summary.json: rate %d, start_rate %d, stages %+v; want the peak 4000, 100 and the three stages", got.Rate, got.StartRate, got.Stages)
	}
	if sp := s.Cells[0].Stages; len(sp) == 3 && (sp[2].E2E == nil || sp[2].E2E.Count < 19999 || sp[2].E2E.Count > 20001 || sp[0].E2E != nil) {
		t.Errorf("the spike's e2e distribution %+v: want its 20,000 messages (4,000/s for 5 s), and none for the unnamed ramp", sp[2].E2E)
	}
	judged := false
	for _, th := range r.summary.Thresholds {
		if th.Metric == "mq_e2e_latency{stage:spike}" || strings.HasPrefix(th.Metric, "mq_e2e_latency{") && strings.Contains(th.Metric, "stage:spike") {
			judged = th.OK && th.Value != nil && *th.Value > 0 && *th.Value < 500
		}
	}
	if !judged {
		t.Errorf("the stage threshold was not judged on the spike's data: %+v", r.summary.Thresholds)
	}
	html, err := os.ReadFile(filepath.Join(r.resultsDir, "report.html"))
	if err != nil || !strings.Contains(string(html), `data-series="target"`) {
		t.Errorf("report.html (%v) draws no target rate", err)
	}
}
