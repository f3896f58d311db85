package ladder

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	_ "github.com/mqbench/xk6-mqbench/internal/driver/all"
)

// fake holds each rule up to its ceiling, and at lucky.
type fake struct{ ceilings []int }

// lucky is a rate every fake holds (a pass above a failure).
const lucky = 3000

func (f *fake) Rules() int { return len(f.ceilings) }

func (f *fake) Measure(rate, _ int, on []bool) ([]bool, string, error) {
	held := make([]bool, len(f.ceilings))
	for i, c := range f.ceilings {
		held[i] = on[i] && (rate <= c || rate == lucky)
	}
	return held, "r" + strconv.Itoa(rate), nil
}

func TestClimb(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ceilings [][]int // per probe, per rule
		rates    []int
		best     []Best
		rows     string
	}{
		{"both stop", [][]int{{2000}, {4000}}, []int{1000, 2000, 2500, 4000, 5000, 6000},
			[]Best{{2000, 2}, {4000, 4}},
			"1000 1 r1000 r1000\n2000 2 r2000 r2000\n2500 2 r2500  (not held) r2500\n4000 4 - r4000\n5000 5 - r5000  (not held)\n"},
		{"the top rung held: at least", [][]int{{9000}}, []int{1000, 2000},
			[]Best{{2000, 2}}, "1000 1 r1000\n2000 2 r2000\n"},
		{"nothing held", [][]int{{0}, {0}}, []int{1000, 2000},
			[]Best{{0, 0}, {0, 0}}, "1000 1 r1000  (not held) r1000  (not held)\n"},
		{"two rules: the probe runs while one climbs", [][]int{{1000, 2500}}, []int{1000, 2000, 2500, 4000},
			[]Best{{1000, 1}, {2500, 2}}, "1000 1 r1000\n2000 2 r2000\n2500 2 r2500\n4000 4 r4000  (not held)\n"},
		{"a pass above a failure does not count", [][]int{{1000}}, []int{1000, 2000, lucky},
			[]Best{{1000, 1}}, "1000 1 r1000\n2000 2 r2000  (not held)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var probes []Probe
			for _, c := range tc.ceilings {
				probes = append(probes, &fake{ceilings: c})
			}
			var out bytes.Buffer
			best, err := Climb(tc.rates, func(r int) int { return Batch(r, 1000) }, probes, "%s %s %s %s", &out)
			if err != nil {
				t.Fatal(err)
			}
			rows := strings.ReplaceAll(out.String(), " %!s(MISSING)", "")
			if rows != tc.rows {
				t.Errorf("rows\n%s\nwant\n%s", rows, tc.rows)
			}
			if len(best) != len(tc.best) {
				t.Fatalf("best %v, want %v", best, tc.best)
			}
			for i := range best {
				if best[i] != tc.best[i] {
					t.Errorf("best %v, want %v", best, tc.best)
				}
			}
		})
	}
}

func TestResultLineAndPeer(t *testing.T) {
	if got := ResultLine([]Best{{2000, 2}, {0, 0}}); got != "#ladder\tbest\t2000 0\tbatch\t2 -" {
		t.Errorf("ResultLine = %q", got)
	}
	for _, tc := range []struct {
		out  string
		n    int
		held []bool
		line string
		err  string
	}{
		{"noise\n1 0\t990 980 12ms  (held on average only)\n", 2, []bool{true, false}, "990 980 12ms  (held on average only)", ""},
		{"0\ttimed out\n", 1, []bool{false}, "timed out", ""},
		{"1 1\tx\n", 1, nil, "", "must be 1 verdicts"},
		{"1 no tab\n", 1, nil, "", "must be 1 verdicts"},
		{"yes\tx\n", 1, nil, "", "is \"yes\""},
	} {
		held, line, err := ParsePeer([]byte(tc.out), tc.n)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParsePeer(%q) error %v, want %q", tc.out, err, tc.err)
			}
			continue
		}
		if err != nil || line != tc.line || len(held) != len(tc.held) || held[0] != tc.held[0] {
			t.Errorf("ParsePeer(%q) = %v %q %v", tc.out, held, line, err)
		}
	}
}

// A rung's scenario is what the bench scripts wrote: it validates and says what they said.
func TestStepSpec(t *testing.T) {
	broker, err := childrun.BrokerNode("--broker", `{ type: nats, url: "nats://127.0.0.1:4222", nats: { mode: core } }`)
	if err != nil {
		t.Fatal(err)
	}
	s := Step{Name: "nats-rate", Broker: broker, Size: "1KB", Duration: time.Minute, Warmup: 2 * time.Second,
		Drain: 2 * time.Second, Producers: 1, Consumers: 1, Pacing: "precise", LateVUs: true, LateMax: 100 * time.Millisecond}
	spec := s.Spec(40000, 20)
	file := filepath.Join(t.TempDir(), spec.Name+".yaml")
	sc, err := childrun.WriteScenario(file, "test", spec)
	if err != nil {
		b, _ := os.ReadFile(file)
		t.Fatalf("%v\n%s", err, b)
	}
	c := sc.Cells[0]
	if sc.Name != "nats-rate-40000" || sc.Workload.Destination != "mqbench.bench.nats-rate-40000" || c.Rate != 40000 ||
		c.Batch != 20 || c.VUs != 202 || c.Duration != time.Minute || !sc.Validity.AllowDroppedIterations {
		t.Errorf("scenario %+v, cell %+v", sc, c)
	}
}
