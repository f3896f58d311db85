package reproduce

import (
	"bytes"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/bench"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

func TestParseScale(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{{"1", 1, true}, {"0.02", 0.02, true}, {".5", 0.5, true}, {"0", 0, false}, {"1.5", 0, false}, {"-0.1", 0, false}, {"half", 0, false}, {"NaN", 0, false}} {
		got, err := ParseScale(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseScale(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
		if err != nil && err.Error() != "REPRODUCE_SCALE must be a fraction in (0, 1], got "+c.in {
			t.Errorf("ParseScale(%q): message %q", c.in, err)
		}
	}
}

// A ratio row is printed only when both figures were measured (a broker that did not run
// leaves its row out), with two decimals, "-" for a zero divisor.
func TestRatioRowAndFigure(t *testing.T) {
	var out bytes.Buffer
	e := &Env{Env: &bench.Env{Out: &out}}
	s := &results.Summary{Cells: []results.Cell{{ID: "c1", E2ERate: 300}, {ID: "c2", E2ERate: 0}}}
	e.Table("ratio", "mqbench", "study")
	e.RatioRow("c1 ÷ c1", Figure(s, "c1", e2eRate), Figure(s, "c1", e2eRate), "1")
	e.RatioRow("c1 ÷ c2", Figure(s, "c1", e2eRate), Figure(s, "c2", e2eRate), "x")
	e.RatioRow("c3 ÷ c1", Figure(s, "c3", e2eRate), Figure(s, "c1", e2eRate), "never printed")
	want := "| ratio | mqbench | study |\n|---|---|---|\n| c1 ÷ c1 | 1.00 | 1 |\n| c1 ÷ c2 | - | x |\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// Every study of the default order is a section, and every section is in the order.
func TestOrderNamesEverySection(t *testing.T) {
	if len(Order) != len(Sections) {
		t.Fatalf("Order has %d studies, Sections %d", len(Order), len(Sections))
	}
	for _, n := range Order {
		if Sections[n] == nil {
			t.Errorf("Order names %q, which is no section", n)
		}
	}
}
