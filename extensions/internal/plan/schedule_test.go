package plan

import (
	"encoding/json"
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/arrival"
	arrivalexec "github.com/mqbench/xk6-mqbench/internal/arrival/executor" // registers arrival.Type with k6
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"go.k6.io/k6/v2/lib"
	"go.k6.io/k6/v2/lib/executor"
)

// k6TickerPeriod is k6's getTickerPeriod (lib/executor/helpers.go, unexported) as
// ConstantArrivalRate.Run calls it for its timer: on the unscaled Rate and TimeUnit.
func k6TickerPeriod(rate int64, timeUnit time.Duration) time.Duration {
	f, _ := new(big.Rat).Inv(big.NewRat(rate, int64(timeUnit))).Float64()
	return time.Duration(f)
}

// formerRunnerPeriod is how the runner computed a cell's period before the plan owned it
// (cell.go's tickerPeriod, with shared.go's scale): intended times must not move.
func formerRunnerPeriod(rate, batch, num, den int) time.Duration {
	f, _ := new(big.Rat).Inv(big.NewRat(int64(rate*num), int64(batch*den)*int64(time.Second))).Float64()
	return time.Duration(f)
}

// Every cell's schedule, for plain and shared-destination runs: the options k6 decodes give
// k6's timer the schedule's rate and time unit, k6's period equals the schedule's (and the
// runner's former one), so each iteration's intended time (start + i × period) is k6's tick,
// to the nanosecond, up to a 30 s cell's last.
func TestScheduleIsK6s(t *testing.T) {
	type scale struct{ runners, producers, consumers, num, den int }
	scales := []scale{{0, 0, 0, 1, 1}, {3, 2, 1, 3, 2}, {4, 0, 1, 4, 3}, {5, 2, 3, 5, 2}, {7, 1, 6, 7, 1}}
	for _, rate := range []int{1, 3, 7, 1000, 6000, 33333, 300000} {
		for _, batch := range []int{1, 3, 10} {
			for _, s := range scales {
				sc := &scenario.Scenario{Name: "sched", Broker: scenario.Broker{Type: "nats", URL: "nats://h:4222"},
					Distributed: scenario.Distributed{Shared: s.runners > 0, Producers: s.producers, Consumers: s.consumers},
					Cells:       []scenario.Cell{{ID: "c1", SizeLabel: "1KB", Rate: rate, Batch: batch, Producers: 1, Consumers: 1, Duration: 30 * time.Second}}}
				p := Build(sc, "id", s.runners)
				got := p.Schedule(0)
				car := decodedPublish(t, p)
				k6 := k6TickerPeriod(car.Rate.Int64, car.TimeUnit.TimeDuration())
				switch {
				case car.Rate.Int64 != int64(got.Rate) || car.TimeUnit.TimeDuration() != got.TimeUnit:
					t.Errorf("rate %d batch %d scale %d/%d: k6 runs %d per %v, the schedule says %d per %v", rate, batch, s.num, s.den, car.Rate.Int64, car.TimeUnit.TimeDuration(), got.Rate, got.TimeUnit)
				case got.Period != k6 || got.Period != formerRunnerPeriod(rate, batch, s.num, s.den):
					t.Errorf("rate %d batch %d scale %d/%d: period %d ns, k6's %d ns, the runner's former %d ns", rate, batch, s.num, s.den, got.Period, k6, formerRunnerPeriod(rate, batch, s.num, s.den))
				}
				last := int64(30*time.Second) / int64(k6) // the cell's last tick
				for _, i := range []int64{0, 1, 7, last / 2, last} {
					if at, want := time.Duration(i)*got.Period, k6*time.Duration(i); at != want {
						t.Errorf("rate %d batch %d scale %d/%d: iteration %d intended at %v, k6's tick at %v", rate, batch, s.num, s.den, i, at, want)
					}
				}
			}
		}
	}
}

// decodedPublish is the cell's producer scenario as k6 decodes it from the plan's options.
func decodedPublish(t *testing.T, p *Plan) executor.ConstantArrivalRateConfig {
	t.Helper()
	o := decodedOptions(t, p)
	car, ok := o.Scenarios["c1_publish"].(*arrivalexec.Config)
	if !ok {
		t.Fatalf("c1_publish is a %T, want %s", o.Scenarios["c1_publish"], arrival.Type)
	}
	return car.ConstantArrivalRateConfig
}

// decodedOptions is the plan's k6 options as k6 decodes them.
func decodedOptions(t *testing.T, p *Plan) lib.Options {
	t.Helper()
	raw, err := p.Options.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var o lib.Options
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

// A cell without a fixed rate has no schedule: rate: max, and an index past the cells.
func TestNoSchedule(t *testing.T) {
	sc := &scenario.Scenario{Name: "max", Broker: scenario.Broker{Type: "nats"},
		Cells: []scenario.Cell{{ID: "c1", SizeLabel: "1KB", Max: true, Producers: 1, Consumers: 1, Duration: time.Second}}}
	p := Build(sc, "id", 0)
	for _, i := range []int{0, 1, -1} {
		if s := p.Schedule(i); !reflect.DeepEqual(s, Schedule{}) {
			t.Errorf("cell %d: schedule %+v, want none", i, s)
		}
	}
}
