package plan

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/arrival"
	"github.com/mqbench/xk6-mqbench/internal/threshold"
)

// Options are the k6 options of a run, typed: the entry script exports them as they are, and
// nothing else builds or walks k6's option names.
type Options struct {
	Scenarios         map[string]Executor    `json:"scenarios"`
	Thresholds        map[string][]Threshold `json:"thresholds"`
	SummaryTrendStats []string               `json:"summaryTrendStats"`
	Tags              map[string]string      `json:"tags"`
	SetupTimeout      string                 `json:"setupTimeout"`
	TeardownTimeout   string                 `json:"teardownTimeout"`
	// NoCookiesReset spares every iteration k6's new cookie jar (an HTTP test's), which no
	// broker uses.
	NoCookiesReset bool `json:"noCookiesReset"`
}

// Executor is one k6 scenario: a cell's producers (arrival.Type, or per-vu-iterations
// for rate: max) or its consumer (per-vu-iterations, one iteration).
type Executor struct {
	Executor        string            `json:"executor"`
	Exec            string            `json:"exec"`
	VUs             int               `json:"vus,omitempty"`
	Iterations      int               `json:"iterations,omitempty"`
	MaxDuration     string            `json:"maxDuration,omitempty"`
	Rate            int               `json:"rate,omitempty"`
	TimeUnit        string            `json:"timeUnit,omitempty"`
	Duration        string            `json:"duration,omitempty"`
	StartRate       int               `json:"startRate,omitempty"`
	Stages          []Stage           `json:"stages,omitempty"`
	PreAllocatedVUs int               `json:"preAllocatedVUs,omitempty"`
	MaxVUs          int               `json:"maxVUs,omitempty"`
	StartTime       string            `json:"startTime"`
	GracefulStop    string            `json:"gracefulStop"`
	Tags            map[string]string `json:"tags"`
}

// Stage is one stage of a ramping-arrival-rate executor.
type Stage struct {
	Target   int    `json:"target"`
	Duration string `json:"duration"`
}

// The k6 executors and the entry script's functions a plan uses.
const (
	ConstantArrivalRate = arrival.Type // k6's constant-arrival-rate, ticks to the VU parked last
	RampingArrivalRate  = "ramping-arrival-rate"
	PerVUIterations     = "per-vu-iterations"
	ExecPublish         = "publish"
	ExecPublishMax      = "publishMax"
	ExecConsume         = "consume"
)

// Threshold is one k6 threshold: k6's short form (the expression alone) unless it aborts the
// run, then k6's long form.
type Threshold struct {
	Expr           threshold.Expr
	AbortOnFail    bool
	DelayAbortEval string
}

// MarshalJSON writes k6's short or long threshold form.
func (t Threshold) MarshalJSON() ([]byte, error) {
	if !t.AbortOnFail {
		return json.Marshal(t.Expr.K6())
	}
	long := map[string]any{"threshold": t.Expr.K6(), "abortOnFail": true}
	if t.DelayAbortEval != "" {
		long["delayAbortEval"] = t.DelayAbortEval
	}
	return json.Marshal(long)
}

var _ json.Marshaler = Threshold{}

// JSON is the options as the entry script exports them.
func (o Options) JSON() ([]byte, error) { return json.Marshal(o) }

// dur is a duration in k6's option syntax, in whole milliseconds.
func dur(d time.Duration) string { return fmt.Sprintf("%dms", d.Milliseconds()) }

// addThreshold adds t to key's list unless an identical one is there.
func (o *Options) addThreshold(key string, t Threshold) {
	for _, x := range o.Thresholds[key] {
		if x == t {
			return
		}
	}
	o.Thresholds[key] = append(o.Thresholds[key], t)
}
