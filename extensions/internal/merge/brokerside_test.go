package merge

import (
	"reflect"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

func TestMergeBrokerSide(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	f := func(v float64) *float64 { return &v }
	a := &results.BrokerSide{StepS: 1, Samples: 3, Errors: 1, FirstError: "timeout",
		Points: []results.BrokerPoint{
			{T: 0, Backlog: i(10), ClientBacklog: i(9), CPUPercent: f(20), MemoryBytes: i(100)},
			{T: 1, Backlog: i(50), ClientBacklog: i(48), CPUPercent: f(40), MemoryBytes: i(120)},
			{T: 2, Backlog: i(5), CPUPercent: f(10)},
		},
		BacklogMax: i(50), CPUPercentMax: f(40), MemoryBytesMax: i(120)}
	b := &results.BrokerSide{StepS: 1, Samples: 2,
		Points: []results.BrokerPoint{
			{T: 0, Backlog: i(60), ClientBacklog: i(61), CPUPercent: f(25), MemoryBytes: i(90)},
			{T: 1, Backlog: i(1), ClientBacklog: i(1), CPUPercent: f(30), MemoryBytes: i(130)},
		},
		BacklogMax: i(60), CPUPercentMax: f(30), MemoryBytesMax: i(130)}
	cases := []struct {
		name  string
		parts []*results.BrokerSide
		want  *results.BrokerSide
	}{
		{"no runner read the broker", []*results.BrokerSide{nil, nil}, nil},
		{"one runner: unchanged", []*results.BrokerSide{nil, a}, a},
		{"backlogs add up per second, CPU and memory take the highest reading",
			[]*results.BrokerSide{a, b},
			&results.BrokerSide{StepS: 1, Samples: 5, Errors: 1, FirstError: "timeout",
				Points: []results.BrokerPoint{
					{T: 0, Backlog: i(70), ClientBacklog: i(70), CPUPercent: f(25), MemoryBytes: i(100)},
					{T: 1, Backlog: i(51), ClientBacklog: i(49), CPUPercent: f(40), MemoryBytes: i(130)},
					{T: 2, Backlog: i(5), CPUPercent: f(10)},
				},
				// the highest summed second (70), not the sum of the peaks (110)
				BacklogMax: i(70), CPUPercentMax: f(40), MemoryBytesMax: i(130)}},
		{"no points kept: the peaks add up",
			[]*results.BrokerSide{{StepS: 1, Samples: 1, BacklogMax: i(4)}, {StepS: 1, Samples: 1, BacklogMax: i(6)}},
			&results.BrokerSide{StepS: 1, Samples: 2, Points: []results.BrokerPoint{}, BacklogMax: i(10)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mergeBrokerSide(c.parts)
			if c.want == nil || got == nil {
				if (c.want == nil) != (got == nil) {
					t.Fatalf("got %+v, want %+v", got, c.want)
				}
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", *got, *c.want)
			}
		})
	}
}
