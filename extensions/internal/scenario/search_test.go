package scenario

import (
	"testing"
	"time"
)

func TestSearchBlock(t *testing.T) {
	base := `name: t
broker: { type: nats }
workload: { destination: q, duration: 30s }
matrix:
  - { size: 1KB, rate: 500 }
  - { size: 1KB, rate: 1000, thresholds: { mq_e2e_latency: ["p(99) < 5ms"] } }
`
	if s := mustParse(t, base); s.Search != nil {
		t.Errorf("no search block: Search = %+v, want nil", s.Search)
	}
	s := mustParse(t, base+`thresholds: { mq_messages_lost: ["count == 0"] }
search: { max_rate: 100000 }
`)
	want := Search{MaxRate: 100000, Step: DefaultSearchStep, Precision: DefaultSearchPrecision,
		Confirm: DefaultSearchConfirm, BacklogGrowth: DefaultSearchBacklogGrowth}
	if s.Search == nil || *s.Search != want {
		t.Errorf("defaults: Search = %+v, want %+v", s.Search, want)
	}
	s = mustParse(t, base+`thresholds: { mq_messages_lost: ["count == 0"] }
search: { max_rate: 8000, step: 3s, precision: "12.5%", confirm: 5s, backlog_growth: 0% }
`)
	want = Search{MaxRate: 8000, Step: 3 * time.Second, Precision: 0.125, Confirm: 5 * time.Second}
	if s.Search == nil || *s.Search != want {
		t.Errorf("set: Search = %+v, want %+v", s.Search, want)
	}
}
