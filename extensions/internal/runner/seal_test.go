package runner

import (
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// The verdict and summary.json agree: a confirmation that comes back after the cell's drain
// (the message was unconfirmed at the freeze, never delivered: acknowledged and lost) moves
// it to lost in the ledger; judged after Seal, the threshold fails on the loss summary.json
// shows, and what arrives after Seal changes neither.
func TestVerdictAndSummaryAgreeAfterLateAnswers(t *testing.T) {
	for _, c := range []struct {
		name     string
		late     func(r *Runner) // after the cell's drain, before the run closed
		lost     uint64
		held     uint64
		lostPass bool // mq_messages_lost count==0
	}{
		{"nothing late", func(*Runner) {}, 0, 0, true},
		{"late confirmation, never delivered", func(r *Runner) { r.cells[0].ledger.Confirmed(0, 2) }, 1, 0, false},
		{"late confirmation and delivery", func(r *Runner) {
			r.cells[0].ledger.Confirmed(0, 2)
			r.cells[0].ledger.Receive(0, 2, 0)
		}, 0, 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := embeddedScenario(scenario.Cell{ID: "c1", Size: 64, SizeLabel: "64B", Rate: 300, Batch: 1, Producers: 1, Consumers: 1, Duration: time.Second})
			sc.Workload.Consumers = 1
			r, err := newRunner(sc)
			if err != nil {
				t.Fatal(err)
			}
			l := r.cells[0].ledger
			r.cells[0].tl.begin(0)
			for i := range 3 {
				seq := l.Issue(0)
				if i < 2 {
					l.Confirmed(0, seq)
					l.Receive(0, seq, 0)
				}
			}
			if tl := r.finalize(0, false); tl.Lost != 0 || tl.Unconfirmed != 1 {
				t.Fatalf("at the drain's end: %+v; want lost 0, unconfirmed 1", tl)
			}
			c.late(r)
			r.Seal()
			th, err := verdict.New(catalog.MessagesLost+"{cell:c1}", "count==0", "count == 0", false)
			if err != nil {
				t.Fatal(err)
			}
			judged := th.Eval(r, time.Minute)
			// After the seal: neither the verdict nor the summary moves.
			l.Confirmed(0, 2)
			l.Receive(0, 2, 0)
			sum := r.Report().Cells[0].Ledger
			if !r.Sealed() || judged.OK != c.lostPass || judged.Value != float64(sum.Lost) || sum.Lost != c.lost || sum.Held != c.held {
				t.Errorf("verdict ok %v on lost %v; summary lost %d held %d; want ok %v on lost %d, held %d",
					judged.OK, judged.Value, sum.Lost, sum.Held, c.lostPass, c.lost, c.held)
			}
			if again := th.Eval(r, time.Minute); again != judged {
				t.Errorf("judged again after the seal: %+v, first %+v", again, judged)
			}
		})
	}
}
