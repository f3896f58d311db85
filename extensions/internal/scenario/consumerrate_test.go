package scenario

import (
	"fmt"
	"testing"
)

// A cell takes the workload's consumer_rate unless it sets its own; no key, no cap.
func TestConsumerRateInheritance(t *testing.T) {
	cases := []struct {
		name, workload, cells string
		want                  []int
	}{
		{"unset", "", "[{ size: 1KB, rate: 100 }]", []int{0}},
		{"workload", ", consumer_rate: 1000", "[{ size: 1KB, rate: 100 }, { size: 1KB, rate: 200 }]", []int{1000, 1000}},
		{"cell overrides", ", consumer_rate: 1000", "[{ size: 1KB, rate: 100, consumer_rate: 250 }, { size: 1KB, rate: 200 }]", []int{250, 1000}},
		{"cell only", "", "[{ size: 1KB, rate: 100 }, { size: 1KB, rate: 200, consumer_rate: 2000000 }]", []int{0, 2000000}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mustParse(t, fmt.Sprintf("name: t\nbroker: { type: nats }\nworkload: { destination: bench.t, duration: 10s%s }\nmatrix: %s\n", c.workload, c.cells))
			for i, want := range c.want {
				if got := s.Cells[i].ConsumerRate; got != want {
					t.Errorf("cell %d consumer_rate = %d, want %d", i, got, want)
				}
			}
		})
	}
}
