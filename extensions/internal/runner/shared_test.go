package runner

import (
	"net"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/clocksync"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// A runner whose clock is shifted (both signs, ms and s) stamps header times on the
// reference clock once it measured its offset: toRef(now) is the reference's time within the
// measurement's uncertainty, fromRef undoes it, and the clock report bounds each cell by the
// correction's uncertainty plus how far the offset moved around it.
func TestSharedClockCorrection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { _ = clocksync.Serve(ln) }()
	for _, skew := range []time.Duration{1500 * time.Millisecond, -1500 * time.Millisecond, 7 * time.Millisecond, -7 * time.Millisecond} {
		r, err := newRunner(embeddedScenario(scenario.Cell{ID: "c1", Size: 128, SizeLabel: "128B", Rate: 100, Batch: 1, Producers: 1, Consumers: 1, Duration: time.Second}),
			WithShared(SharedConfig{RunID: 7, Runner: 2, Runners: 3, Produces: true, Consumes: true, ClockRef: ln.Addr().String(), TestSkew: skew}))
		if err != nil {
			t.Fatal(err)
		}
		if r.RunID() != 7 || r.runnerNo() != 2 {
			t.Fatalf("run id %d runner %d", r.RunID(), r.runnerNo())
		}
		if got := r.toRef(r.now()) - time.Now().UnixNano(); got < int64(skew)-int64(time.Millisecond) || got > int64(skew)+int64(time.Millisecond) {
			t.Fatalf("skew %v: before measuring, stamps are off by %v", skew, time.Duration(got))
		}
		c := r.cells[0]
		st := time.Now()
		c.startedAt.Store(&st)
		if err := r.startClock(); err != nil {
			t.Fatal(err)
		}
		unc := r.shared.corr.Uncertainty
		if off := r.toRef(r.now()) - time.Now().UnixNano(); off < -unc-int64(time.Millisecond) || off > unc+int64(time.Millisecond) {
			t.Errorf("skew %v: corrected stamps off by %v (uncertainty %v)", skew, time.Duration(off), time.Duration(unc))
		}
		if v := r.now(); r.fromRef(r.toRef(v)) != v || r.toRef(-1) != -1 {
			t.Error("fromRef does not undo toRef, or a missing time (-1) was shifted")
		}
		time.Sleep(1200 * time.Millisecond) // one periodic measurement
		en := time.Now()
		c.endedAt.Store(&en)
		r.stopClock()
		rep := r.ClockReport()
		cc := rep.Cells[0]
		if rep.TestOnlySkewNS != int64(skew) || cc.BoundNS < unc || cc.BoundNS > int64(5*time.Millisecond) || len(r.shared.samples) < 3 {
			t.Errorf("skew %v: report %+v, cell %+v, %d samples", skew, rep, cc, len(r.shared.samples))
		}
	}
}
