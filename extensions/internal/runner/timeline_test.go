package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/cpu"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

func TestTimelineCountsPerSecondFromTheCellStart(t *testing.T) {
	tl := newTimeline(3 * time.Second)
	tl.addSent(5e9, 7) // before begin: slot 0, not lost
	tl.begin(10e9)
	tl.begin(99e9) // only the first start counts
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				tl.addSent(10e9+int64(i)*2e6, 1) // 1000 messages over 2 s, per goroutine
				tl.addRecv(10e9 + int64(i)*2e6 + 1e6)
			}
		}()
	}
	wg.Wait()
	tl.addRecv(1e12) // far too late: the last slot
	step, pts := tl.points()
	if step != 1 {
		t.Fatalf("step %v, want 1 s", step)
	}
	if len(pts) != len(tl.sent) || pts[0].T != 0 || pts[1].T != 1 {
		t.Fatalf("points %+v", pts)
	}
	if pts[0].Sent != 2007 || pts[1].Sent != 2000 || pts[0].Received != 2000 || pts[1].Received != 2000 {
		t.Errorf("per-second counts %+v", pts[:2])
	}
	if pts[len(pts)-1].Received != 1 {
		t.Errorf("late delivery not in the last slot: %+v", pts[len(pts)-1])
	}
}

func TestTimelineOfAVeryLongCellIsBounded(t *testing.T) {
	tl := newTimeline(10 * time.Hour)
	if len(tl.sent) > maxTimelineSlots+2 || tl.step != int64(11*time.Second) {
		t.Fatalf("%d slots of %v", len(tl.sent), time.Duration(tl.step))
	}
	tl.begin(0)
	tl.addSent(int64(time.Hour), 3)
	step, pts := tl.points()
	if step != 11 || pts[len(pts)-1].Sent != 3 || pts[len(pts)-1].T != 3597 {
		t.Fatalf("step %v, last %+v", step, pts[len(pts)-1])
	}
}

// A real run through the embedded server: the timeline adds up to the counts; the results
// folder holds each distribution as .hgrm, as an exact V2 encoding and as an interval log,
// and decoding either gives summary.json's percentiles; the progress line names the cell.
func TestTimelineDistributionsAndProgressOfARun(t *testing.T) {
	sc := embeddedScenario(scenario.Cell{ID: "c1", Size: 64, SizeLabel: "64B", Rate: 1000, Batch: 1, Producers: 1, Consumers: 1, Duration: 2 * time.Second, Drain: time.Second})
	dir := t.TempDir()
	r := connected(t, sc, WithResultsDir(dir))
	ctx := context.Background()
	start := time.Now()
	r.startCell(0)
	var perSecond int64
	for i := uint64(0); i < 300; i++ {
		r.Publish(ctx, 0, start, i)
		if i%100 == 99 { // three "seconds"
			time.Sleep(20 * time.Millisecond)
			perSecond += r.takeSecond(0).Trends["e2e"].Count
		}
	}
	waitFor(t, func() bool { return r.cells[0].received.Load() == 300 })
	line, more := r.progressLine(10 * time.Second)
	if !more || !regexp.MustCompile(`^mqbench c1 \(1/1, 64B at 1000/s\) \d+s/3s, run \d+s/10s: sent (\d+/s|-) recv (\d+/s|-), e2e p50 [0-9.]+(us|ms) p99 [0-9.]+(us|ms), backlog (\d+|-), errors 0, lost 0$`).MatchString(line) {
		t.Errorf("progress line %q (more %v)", line, more)
	}
	r.finalize(0, false)
	perSecond += r.takeSecond(0).Trends["e2e"].Count
	r.endCell(0)
	if _, more := r.progressLine(10 * time.Second); more {
		t.Error("progress goes on after the last cell ended")
	}
	if perSecond != 300 {
		t.Errorf("per-second aggregates counted %d e2e latencies, want 300", perSecond)
	}

	sum := r.Report()
	rep := sum.Cells[0]
	var sent, recv uint64
	for _, p := range rep.Timeline {
		sent += p.Sent
		recv += p.Received
	}
	if rep.TimelineStepS != 1 || sent != 300 || recv != 300 {
		t.Errorf("timeline step %v sums sent %d recv %d, want 300/300: %+v", rep.TimelineStepS, sent, recv, rep.Timeline)
	}

	// The host's CPU steal is read where Linux counts it: a share of the cell's time, and
	// seconds on the interval log's clock (within the ~0.1 s the cell ran).
	if _, _, ok := cpu.HostTicks(); ok && (rep.HostStealPct == nil || *rep.HostStealPct < 0 || *rep.HostStealPct > 100) {
		t.Errorf("host steal %v, want a percentage", rep.HostStealPct)
	}
	for _, s := range rep.HostSteal {
		if s.Start < 0 || s.Length <= 0 || s.Start+s.Length > 5 || s.Pct <= 0 || s.Pct > 100 {
			t.Errorf("host steal second %+v", s)
		}
	}

	// The p95 per minute, read back from the interval log: the run is one minute, so its
	// p95 is the cell's (clamped to the exact max, as summary.json's percentiles are).
	if m := rep.P95ByMinute["e2e"]; len(m) != 1 || m[0].Count != 300 || min(m[0].P95, rep.E2ELatency.Max) != rep.E2ELatency.P["p95"] {
		t.Errorf("e2e p95 by minute %+v, want one minute of 300 at the cell's p95 %.3f", m, rep.E2ELatency.P["p95"])
	}
	if _, ok := rep.P95ByMinute["publish"]; ok {
		t.Error("a p95 by minute for an empty distribution (fire-and-forget publish)")
	}

	if _, err := results.WriteData(dir, &sum, r.Hists()); err != nil {
		t.Fatal(err)
	}
	rep = sum.Cells[0]
	if _, ok := rep.Hgrm["publish"]; ok {
		t.Error("an empty distribution (fire-and-forget publish) was written")
	}
	if rep.Hgrm["e2e"] != "hgrm/c1.e2e.hgrm" || rep.Hdr["e2e"] != "hdr/c1.e2e.hdr" || rep.Hlog["e2e"] != "hlog/c1.e2e.hlog" {
		t.Fatalf("files %v %v %v", rep.Hgrm, rep.Hdr, rep.Hlog)
	}
	b, err := os.ReadFile(filepath.Join(dir, "hgrm", "c1.e2e.hgrm"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := hist.ParseHgrm(bytes.NewReader(b))
	if err != nil || d.TotalCount != 300 || !strings.HasPrefix(string(b), "       Value     Percentile") {
		t.Fatalf("c1.e2e.hgrm: count %d, %v\n%s", d.TotalCount, err, b)
	}
	if got, want := d.Max, rep.E2ELatency.Max; got < want*0.999 || got > want*1.001 {
		t.Errorf(".hgrm max %.3f, summary max %.3f", got, want)
	}

	// The exact encoding and the interval log (merged) give summary.json's percentiles.
	enc, err := os.ReadFile(filepath.Join(dir, "hdr", "c1.e2e.hdr"))
	if err != nil {
		t.Fatal(err)
	}
	fromHdr, err := hist.DecodeV2(bytes.TrimSpace(enc))
	if err != nil {
		t.Fatal(err)
	}
	fromLog := hist.New()
	logText, err := os.ReadFile(filepath.Join(dir, "hlog", "c1.e2e.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, l := range strings.Split(strings.TrimSpace(string(logText)), "\n") {
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "\"") {
			continue
		}
		f := strings.Split(l, ",")
		h, err := hist.DecodeV2([]byte(f[3]))
		if err != nil {
			t.Fatalf("interval %q: %v", l, err)
		}
		fromLog.Merge(h)
		lines++
	}
	if lines < 2 {
		t.Errorf("interval log has %d intervals, want several:\n%s", lines, logText)
	}
	for name, h := range map[string]*hist.Hist{"hdr": fromHdr, "hlog": fromLog} {
		got := h.Snapshot()
		if got.Count != rep.E2ELatency.Count {
			t.Errorf("%s: count %d, summary %d", name, got.Count, rep.E2ELatency.Count)
		}
		// The encodings carry buckets, not the exact max that summary.json clamps
		// percentiles to: clamped the same way, every percentile is identical.
		for k, want := range rep.E2ELatency.P {
			if min(got.P[k], rep.E2ELatency.Max) != want {
				t.Errorf("%s: %s %.3fus, summary %.3fus", name, k, got.P[k], want)
			}
		}
	}
}
