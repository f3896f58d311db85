package arrival

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestTicksFollowTheSegmentsStripes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		first   int64
		offsets []int64
		want    []time.Duration
	}{
		{"whole", 0, []int64{1}, []time.Duration{0, 10, 20, 30, 40}},
		{"stripes", 1, []int64{2, 1}, []time.Duration{10, 30, 40, 60, 70}},
	} {
		tk := NewTicks(10, tc.first, tc.offsets)
		var got []time.Duration
		for range tc.want {
			got = append(got, tk.due())
			tk.advance()
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: due times %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A VU back before the next tick holds it; a tick due while its VU runs goes to the VU
// parked last (a stack, not k6's queue); with none parked, the ticks are dropped until a VU
// is back. The rescue is called by hand here (its timer does nothing), so the order is fixed.
func TestHandoffHoldsOrRescuesTicks(t *testing.T) {
	const ms = time.Millisecond
	var late []time.Duration
	shorts := 0
	h := NewHandoff(time.Now().Add(-10*ms), time.Hour, NewTicks(ms, 0, []int64{1}),
		func(due []time.Duration) { late = append(late, due...) }, func() { shorts++ })
	h.rescue = time.AfterFunc(time.Hour, func() {})
	a, b, c := h.Park(), h.Park(), h.Park()
	h.Begin()
	if due := receive(t, c, "c"); due != 0 {
		t.Fatalf("first tick due %v, want 0 (to the VU parked last)", due)
	}
	h.fired()
	h.rescued() // tick 1 came due while c ran
	if due := receive(t, b, "b"); due != ms {
		t.Fatalf("second tick due %v, want 1ms", due)
	}
	h.fired() // b runs tick 1
	if due := h.hold(c); due != 2*ms || len(h.idle) != 1 {
		t.Fatalf("c back while tick 2 is not held: holds %v, %d parked; want 2ms, 1 (a)", due, len(h.idle))
	}
	h.fired() // c runs tick 2
	h.rescued()
	if due := receive(t, a, "a"); due != 3*ms {
		t.Fatalf("fourth tick due %v, want 3ms", due)
	}
	h.fired()
	h.rescued() // tick 4 due, no VU parked
	if shorts != 1 || !h.orphan {
		t.Fatalf("with no VU parked: asked for a VU %d times, orphan %v; want 1, true", shorts, h.orphan)
	}
	due := h.hold(b)
	if len(late) < 6 || late[0] != 4*ms || due != late[len(late)-1]+ms {
		t.Fatalf("b back at ~10ms: dropped %v, holds %v; want 4ms… dropped, then the next", late, due)
	}
}

func receive(t *testing.T, w chan time.Duration, name string) time.Duration {
	t.Helper()
	select {
	case due := <-w:
		return due
	default:
		t.Fatalf("VU %s was not handed the lead", name)
		return 0
	}
}

// Every tick due before the end is run once or counted dropped once, whatever the VUs' pace.
func TestHandoffRunsOrDropsEveryTickOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		vus    int
		period time.Duration
		busy   time.Duration // longest iteration
	}{
		{"enough VUs", 8, time.Millisecond, 100 * time.Microsecond},
		{"one slow VU", 1, time.Millisecond, 6 * time.Millisecond},
		{"a few slow VUs", 3, 200 * time.Microsecond, 2 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const end = 40 * time.Millisecond
			var mu sync.Mutex
			seen := map[time.Duration]string{}
			count := func(due time.Duration, how string) {
				mu.Lock()
				defer mu.Unlock()
				if prev, ok := seen[due]; ok {
					t.Errorf("tick %v %s, already %s", due, how, prev)
				}
				seen[due] = how
			}
			start := time.Now()
			ctx, cancel := context.WithDeadline(context.Background(), start.Add(end))
			defer cancel()
			h := NewHandoff(start, end, NewTicks(tc.period, 0, []int64{1}), func(due []time.Duration) {
				for _, d := range due {
					count(d, "dropped")
				}
			}, func() {})
			var wg sync.WaitGroup
			for range tc.vus {
				w := h.Park()
				wg.Go(func() {
					h.Serve(ctx, w, func(due time.Duration) {
						if late := time.Since(start) - due; late < 0 {
							t.Errorf("tick %v ran %v early", due, -late)
						}
						count(due, "run")
						time.Sleep(rand.N(tc.busy))
					})
				})
			}
			h.Begin()
			wg.Wait()
			ticks := int(end / tc.period)
			for i := range ticks {
				if _, ok := seen[time.Duration(i)*tc.period]; !ok {
					t.Errorf("tick %v neither run nor dropped", time.Duration(i)*tc.period)
				}
			}
			if len(seen) != ticks {
				t.Errorf("%d ticks run or dropped, want %d", len(seen), ticks)
			}
		})
	}
}
