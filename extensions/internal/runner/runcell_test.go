package runner

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// recordingSink keeps what RunCell handed it, in order ("raw" only counted).
type recordingSink struct {
	mu        sync.Mutex
	calls     []string
	raws      int
	received  int
	tally     Tally
	lastFinal bool
}

func (s *recordingSink) Raw(_ int, recv []Received, _ Acks, _ int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls) > 0 && s.calls[len(s.calls)-1] == "end" {
		s.calls = append(s.calls, "raw after end")
	}
	s.raws++
	s.received += len(recv)
}

func (s *recordingSink) Second(cell int, _ Aggregate) { s.add(fmt.Sprintf("second %d", cell)) }
func (s *recordingSink) Verdicts()                    { s.add("verdicts") }

func (s *recordingSink) CellEnd(cell int, t Tally, final bool) {
	s.add(fmt.Sprintf("end %d final=%v", cell, final))
	s.mu.Lock()
	s.tally, s.lastFinal = t, final
	s.mu.Unlock()
}

func (s *recordingSink) add(call string) {
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.mu.Unlock()
}

// The runner drives a cell's lifecycle: a Second and the verdicts once a second while it
// runs, the last Second after its ledger is frozen, then its end, final after the last cell
// or a stop; a cancelled context ends the cell early as interrupted.
func TestRunCellDrivesTheLifecycle(t *testing.T) {
	for _, tc := range []struct {
		name     string
		samples  string
		cell     int // of two; the second is the last
		length   time.Duration
		cancelAt time.Duration // 0: not cancelled
		seconds  int           // running Seconds before the last one
		final    bool
	}{
		{"last cell runs to its end", scenario.SamplesAggregated, 1, 2500 * time.Millisecond, 0, 2, true},
		{"first cell is not final", scenario.SamplesAggregated, 0, 400 * time.Millisecond, 0, 0, false},
		{"raw samples", scenario.SamplesRaw, 1, 600 * time.Millisecond, 0, 0, true},
		{"stopped cell is final and interrupted", scenario.SamplesAggregated, 0, time.Minute, 300 * time.Millisecond, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cell := func(id string) scenario.Cell {
				return scenario.Cell{ID: id, Size: 64, SizeLabel: "64B", Rate: 1000, Batch: 1, Producers: 1, Consumers: 1,
					Duration: tc.length - 100*time.Millisecond, Drain: 100 * time.Millisecond}
			}
			sc := embeddedScenario(cell("c0"), cell("c1"))
			sc.Samples = tc.samples
			r := connected(t, sc)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelAt > 0 {
				time.AfterFunc(tc.cancelAt, cancel)
			}
			start := time.Now()
			const published = 10
			for i := uint64(0); i < published; i++ {
				r.Publish(ctx, tc.cell, start, i)
			}
			sink := &recordingSink{}
			entered := time.Now()
			r.RunCell(ctx, tc.cell, start, sink)
			took := time.Since(start)

			// One running second per whole second RunCell had before the cell's end: a loaded
			// machine that enters it late, or ticks late at the end, may leave out one, never add one.
			room := int(start.Add(tc.length).Sub(entered) / time.Second)
			if tc.cancelAt > 0 {
				room = 0
			}
			n := 0
			for n+1 < len(sink.calls) && sink.calls[n] == fmt.Sprintf("second %d", tc.cell) && sink.calls[n+1] == "verdicts" {
				n += 2
			}
			n /= 2
			if n > room || n < min(tc.seconds, room)-1 {
				t.Errorf("%d running seconds, want %d (%d whole seconds from entering RunCell to the cell's end)", n, min(tc.seconds, room), room)
			}
			var want []string
			for range n {
				want = append(want, fmt.Sprintf("second %d", tc.cell), "verdicts")
			}
			want = append(want, fmt.Sprintf("second %d", tc.cell), fmt.Sprintf("end %d final=%v", tc.cell, tc.final))
			if got := strings.Join(sink.calls, ", "); got != strings.Join(want, ", ") {
				t.Errorf("calls\n got %s\nwant %s", got, strings.Join(want, ", "))
			}
			if tc.cancelAt > 0 {
				if took > tc.cancelAt+2*time.Second || !r.cells[tc.cell].interrupted {
					t.Errorf("stopped cell: returned after %v, interrupted %v", took, r.cells[tc.cell].interrupted)
				}
				return
			}
			if took < tc.length {
				t.Errorf("returned after %v, before the cell's drain ended (%v)", took, tc.length)
			}
			if sink.tally.Unique != published || sink.tally.Lost != 0 {
				t.Errorf("tally %+v, want %d delivered, none lost", sink.tally, published)
			}
			if raw := tc.samples == scenario.SamplesRaw; raw != (sink.raws > 0) || (raw && sink.received != published) {
				t.Errorf("raw mode %v: %d raw calls handed %d deliveries (published %d)", raw, sink.raws, sink.received, published)
			}
		})
	}
}
