// Package selfcheck is `k6 x mqbench selfcheck`: it runs the real pipeline (`k6 x mqbench
// run`: k6's arrival-rate executor, the mqbench module, the ledger and the results writers)
// against a real NATS server inside this process, through a proxy that injects known faults
// (internal/faultproxy), and checks that what mqbench reports is what the faults must
// produce: (a) a delay D on everything published shifts the end-to-end 1st percentile by D; (b) a
// stall of S seconds mid-cell (nothing forwarded either way, like a SIGSTOPped server) gives
// the latency distribution the proxy itself timed, which open-model theory bounds from below
// (theory.go), and loses nothing.
package selfcheck

import (
	"errors"
	"fmt"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// Options are the self-check's knobs; zero values take the defaults.
type Options struct {
	K6   string // the binary whose `x mqbench run` is checked
	Root string // results root: the self-check writes <Root>/selfcheck/<UTC timestamp>/

	Rate      int           // messages per second of every run (1,000)
	Delay     time.Duration // D: the delay the delay check expects (2 ms)
	Tolerance time.Duration // how far the measured shift of the e2e p1 may be from D (0.5 ms)
	Stall     time.Duration // S: the stall (2 s); negative skips the stall check
	// ProxyDelay is what the proxy really injects; nil: Delay. Set apart from Delay it checks
	// the self-check itself: told to expect a delay that is not there, it must fail.
	ProxyDelay *time.Duration
	Now        func() time.Time // the results folder's timestamp (time.Now)
}

// Defaults of Options, in one place for the command's flags and the docs. The tolerance is
// wide beside the run-to-run noise of the e2e 1st percentile's shift on a shared 2-core
// machine beside make test's brokers (1.97 to 2.07 ms for 2 ms), with the proxy's own
// wake-up in it.
const (
	DefaultRate      = 1000
	DefaultDelay     = 2 * time.Millisecond
	DefaultTolerance = 500 * time.Microsecond
	DefaultStall     = 2 * time.Second
)

// Fixed shape of every run: one producer and one consumer on NATS core, small messages, a
// short warm-up; the delay runs measure 4 s each, the stall run 4 S (so its p90 and p99 both
// lie inside the stall: theory.go).
const (
	warmup        = time.Second
	delayDuration = 4 * time.Second
	drain         = 2 * time.Second
	size          = "256B"
	subject       = "mqbench.selfcheck"
	// stallTol is the stall checks' tolerance as a fraction of S, in time: the stall's p90
	// and p99 within S/10, and the share above S/2 within the share of R*S/10 samples. The
	// burst of R*S messages delivered at the stall's end takes a moment to get through
	// (tens of milliseconds here, over a hundred on a machine with 6 runnable threads per
	// core), and what is sent meanwhile waits too.
	stallTol = 0.10
)

// Check fills in the defaults and says what is wrong with the options, if anything.
func (o *Options) Check() error {
	if o.Rate == 0 {
		o.Rate = DefaultRate
	}
	if o.Delay == 0 {
		o.Delay = DefaultDelay
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	if o.Stall == 0 {
		o.Stall = DefaultStall
	}
	if o.ProxyDelay == nil {
		d := o.Delay
		o.ProxyDelay = &d
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	switch {
	case o.K6 == "":
		return errors.New("no k6 binary to check")
	case o.Rate < 10 || o.Rate > 100_000:
		return fmt.Errorf("rate %d: give 10 to 100000 messages per second", o.Rate)
	case o.Delay < 100*time.Microsecond || o.Delay > time.Second:
		return fmt.Errorf("delay %v: give 100us to 1s", o.Delay)
	case o.Tolerance <= 0 || o.Tolerance >= o.Delay:
		return fmt.Errorf("tolerance %v: give more than 0 and less than the delay (%v)", o.Tolerance, o.Delay)
	case o.Stall > 0 && (o.Stall < 200*time.Millisecond || o.Stall > time.Minute):
		return fmt.Errorf("stall %v: give 200ms to 1m (or a negative one to skip the stall check)", o.Stall)
	}
	return nil
}

// Plan is how many runs the self-check makes and about how long they take (each: k6's
// start, about a second here, then warm-up, the measured part and the drain).
func (o Options) Plan() (runs int, took time.Duration) {
	_ = o.Check()
	per := time.Second + warmup + drain
	runs, took = 2, 2*(per+delayDuration)
	if o.Stall > 0 {
		runs, took = 3, took+per+4*o.Stall
	}
	return runs, took
}

// Result is the self-check's outcome, written as selfcheck.json.
type Result struct {
	Dir    string            `json:"dir"`
	Broker string            `json:"broker"`
	Rate   int               `json:"rate"`
	Size   string            `json:"size"`
	Delay  string            `json:"delay"`
	Stall  string            `json:"stall,omitempty"`
	Runs   map[string]string `json:"runs"` // run name → its results folder
	Checks []Check           `json:"checks"`
	Pass   bool              `json:"pass"`
	TookS  float64           `json:"took_s"`
}

// Run runs the self-check. An error is one that kept it from measuring (no server, a run
// that did not end); a failed check is in the Result.
func Run(o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	start := time.Now()
	// A folder of its own even when another self-check started in the same second.
	dir, err := results.NewRunDir(runenv.ScenarioDir(o.Root, "selfcheck"), o.Now())
	if err != nil {
		return nil, err
	}
	srv, err := natsdrv.StartEmbedded()
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	res := &Result{Dir: dir, Broker: "nats (core, in-process)", Rate: o.Rate, Size: size,
		Delay: o.Delay.String(), Runs: map[string]string{}}
	steps := []step{
		{name: "baseline", duration: delayDuration},
		{name: "delayed", delay: *o.ProxyDelay, duration: delayDuration},
	}
	if o.Stall > 0 {
		res.Stall = o.Stall.String()
		steps = append(steps, step{name: "stalled", stall: o.Stall, duration: 4 * o.Stall})
	}
	got := map[string]*measured{}
	for _, st := range steps {
		m, err := runStep(o, srv, dir, st)
		if err != nil {
			return nil, err
		}
		got[st.name] = m
		res.Runs[st.name] = m.dir
	}
	res.Checks = delayChecks(o, got["baseline"], got["delayed"])
	if o.Stall > 0 {
		res.Checks = append(res.Checks, stallChecks(o, got["stalled"])...)
	}
	res.Pass = true
	for _, c := range res.Checks {
		res.Pass = res.Pass && c.Pass
	}
	res.TookS = time.Since(start).Seconds()
	return res, write(res)
}
