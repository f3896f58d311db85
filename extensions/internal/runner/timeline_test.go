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

	"github.com/mqbench/xk6-mqbench/internal/hist"
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

// A real run through the embedded server: the timeline adds up to the counts, the .hgrm
// files hold each distribution, and the progress line names the cell.
func TestTimelineHgrmAndProgressOfARun(t *testing.T) {
	sc := embeddedScenario(scenario.Cell{ID: "c1", Size: 64, SizeLabel: "64B", Rate: 1000, Batch: 1, Producers: 1, Consumers: 1, Duration: 2 * time.Second, Drain: time.Second})
	r := connected(t, sc)
	ctx := context.Background()
	start := time.Now()
	for i := uint64(0); i < 300; i++ {
		r.Publish(ctx, 0, start, i)
	}
	waitFor(t, func() bool { return r.cells[0].received.Load() == 300 })
	line, more := r.progressLine(10 * time.Second)
	if !more || !regexp.MustCompile(`^mqbench: cell c1 \(1/1, 64B at 1000/s\) \d+s/3s, run \d+s/10s, sent 300 recv 300$`).MatchString(line) {
		t.Errorf("progress line %q (more %v)", line, more)
	}
	r.Finalize(0, false)
	if _, more := r.progressLine(10 * time.Second); more {
		t.Error("progress goes on after the last cell ended")
	}

	rep := r.Report().Cells[0]
	var sent, recv uint64
	for _, p := range rep.Timeline {
		sent += p.Sent
		recv += p.Received
	}
	if rep.TimelineStepS != 1 || sent != 300 || recv != 300 {
		t.Errorf("timeline step %v sums sent %d recv %d, want 300/300: %+v", rep.TimelineStepS, sent, recv, rep.Timeline)
	}

	dir := t.TempDir()
	files, err := r.WriteHgrm(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files["c1"]["publish"]; ok {
		t.Error("an empty distribution (fire-and-forget publish) was written")
	}
	e2e, ok := files["c1"]["e2e"].(map[string]any)
	if !ok || e2e["file"] != "c1.e2e.hgrm" || len(e2e["points"].([][]float64)) < 10 {
		t.Fatalf("e2e entry %+v", files["c1"]["e2e"])
	}
	b, err := os.ReadFile(filepath.Join(dir, "c1.e2e.hgrm"))
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
}
