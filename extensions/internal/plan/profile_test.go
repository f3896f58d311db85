package plan

import (
	"math"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"go.k6.io/k6/v2/lib/executor"
)

// A profile's ticks are where its rate's integral reaches 1, 2, 3, …: at a held rate one
// every 1/rate from 1/rate on; on a ramp from 0 the square root of the count.
func TestProfileTicks(t *testing.T) {
	held := Schedule{TimeUnit: time.Second, StartRate: 1000, Stages: []scenario.Stage{{Target: 1000, Duration: 10 * time.Second}}}
	for _, n := range []int64{0, 1, 999, 5000, 9999} {
		if got, want := held.At(n), time.Duration(n+1)*time.Millisecond; absDur(got-want) > time.Microsecond {
			t.Errorf("held 1,000/s: tick %d at %v, want %v", n, got, want)
		}
	}
	if got := held.At(10000); got != -1 {
		t.Errorf("held 1,000/s for 10 s: tick 10,000 at %v, want none (-1)", got)
	}
	ramp := Schedule{TimeUnit: time.Second, Stages: []scenario.Stage{{Target: 2000, Duration: time.Second}}} // integral 1,000 t²
	for _, n := range []int64{0, 3, 99, 998} {
		want := time.Duration(math.Sqrt(float64(n+1)/1000) * float64(time.Second))
		if got := ramp.At(n); absDur(got-want) > time.Microsecond {
			t.Errorf("ramp 0 → 2,000/s over 1 s: tick %d at %v, want %v", n, got, want)
		}
	}
}

// Latest and Next agree with At on every tick of a profile that holds, ramps up, holds,
// jumps (a stage of no duration) and ramps down, and each second holds the profile's integral over it, to one message.
func TestProfileLatestNextAndCounts(t *testing.T) {
	s := Schedule{TimeUnit: time.Second, StartRate: 100, Stages: []scenario.Stage{
		{Target: 100, Duration: time.Second}, {Target: 2000, Duration: 20 * time.Second},
		{Target: 4000, Duration: time.Second}, {Target: 4000, Duration: 4 * time.Second}, {Target: 1000}, {Target: 1000, Duration: time.Second},
		{Target: 0, Duration: 2 * time.Second}}}
	perSecond := map[int64]int{}
	prev := time.Duration(-1)
	var n int64
	for ; ; n++ {
		at := s.At(n)
		if at < 0 {
			break
		}
		if at < prev {
			t.Fatalf("tick %d at %v, before tick %d at %v", n, at, n-1, prev)
		}
		if l := s.Latest(at); l != n {
			t.Fatalf("tick %d at %v: Latest there is %d", n, at, l)
		}
		if l := s.Latest(at - 1); at > prev+1 && l != n-1 {
			t.Fatalf("tick %d at %v: Latest 1 ns before is %d, want %d", n, at, l, n-1)
		}
		if nx := s.Next(prev + 1); prev >= 0 && at > prev && nx != at {
			t.Fatalf("tick %d at %v: Next after tick %d is %v", n, at, n-1, nx)
		}
		perSecond[int64(at/time.Second)]++
		prev = at
	}
	total := 100 + (100+2000)/2*20 + (2000+4000)/2 + 4000*4 + 1000 + 1000/2*2
	if int(n) != total {
		t.Errorf("%d ticks, the profile's integral is %d", n, total)
	}
	for sec := int64(0); sec < 29; sec++ {
		want := integral(s, time.Duration(sec+1)*time.Second) - integral(s, time.Duration(sec)*time.Second)
		if got := float64(perSecond[sec]); math.Abs(got-want) > 1 {
			t.Errorf("second %d: %v ticks, the profile's integral over it is %.1f", sec, got, want)
		}
	}
}

// integral is the profile's rate integrated from 0 to d, by its stages' trapezoids.
func integral(s Schedule, d time.Duration) float64 {
	from, area := float64(s.StartRate), 0.0
	for _, st := range s.Stages {
		to := float64(st.Target)
		if st.Duration == 0 { // a jump
			from = to
			continue
		}
		if d <= st.Duration {
			f := d.Seconds() / st.Duration.Seconds()
			return area + st.Duration.Seconds()*f*(from+(from+(to-from)*f))/2
		}
		area += st.Duration.Seconds() * (from + to) / 2
		d -= st.Duration
		from = to
	}
	return area
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// A cell with stages runs on k6's ramping-arrival-rate: k6 decodes and accepts the options,
// its stages are the warm-up at the start rate, the cell's, and a tail inside the drain (the
// runner sends nothing on its ticks), and the VU pool is sized on the peak.
func TestProfileExecutor(t *testing.T) {
	sc := &scenario.Scenario{Name: "ramp", Broker: scenario.Broker{Type: "nats", URL: "nats://h:4222"},
		Cells: []scenario.Cell{{ID: "c1", SizeLabel: "1KB", Rate: 4000, StartRate: 100, Batch: 2, Producers: 1, Consumers: 1,
			Warmup: 2 * time.Second, Duration: 25 * time.Second, Drain: 3 * time.Second,
			Stages: []scenario.Stage{{Target: 2000, Duration: 20 * time.Second}, {Target: 4000, Duration: 5 * time.Second}}}}}
	p := Build(sc, "id", 0)
	o := decodedOptions(t, p)
	rar, ok := o.Scenarios["c1_publish"].(*executor.RampingArrivalRateConfig)
	if !ok {
		t.Fatalf("c1_publish is a %T, want ramping-arrival-rate", o.Scenarios["c1_publish"])
	}
	if errs := rar.Validate(); len(errs) > 0 {
		t.Fatalf("k6 refuses the executor: %v", errs)
	}
	want := []struct {
		target int64
		d      time.Duration
	}{{100, 2 * time.Second}, {2000, 20 * time.Second}, {4000, 5 * time.Second}, {4000, ProfileTail}}
	if len(rar.Stages) != len(want) || rar.StartRate.Int64 != 100 || rar.TimeUnit.TimeDuration() != 2*time.Second {
		t.Fatalf("start %d per %v, %d stages; want 100 per 2s and %d stages", rar.StartRate.Int64, rar.TimeUnit.TimeDuration(), len(rar.Stages), len(want))
	}
	for i, w := range want {
		if st := rar.Stages[i]; st.Target.Int64 != w.target || st.Duration.TimeDuration() != w.d {
			t.Errorf("stage %d: %d over %v, want %d over %v", i, st.Target.Int64, st.Duration.TimeDuration(), w.target, w.d)
		}
	}
	if s := p.Schedule(0); len(s.Stages) != 3 || s.At(99999) != -1 {
		t.Errorf("the runner's schedule has %d stages and a tick 99,999 at %v; want 3 (no tail) and none", len(s.Stages), s.At(99999))
	}
	if pre, mx := VUBudget(sc.Cells[0]); rar.PreAllocatedVUs.Int64 != int64(pre) || rar.MaxVUs.Int64 != int64(mx) {
		t.Errorf("VUs %d / %d, want the peak's %d / %d", rar.PreAllocatedVUs.Int64, rar.MaxVUs.Int64, pre, mx)
	}
}
