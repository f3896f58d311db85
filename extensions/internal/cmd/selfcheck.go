package cmd

import (
	"fmt"
	"os"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/mqbench/xk6-mqbench/internal/selfcheck"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

const selfcheckLong = `Check that mqbench reports latency truthfully on this machine, in about 40 s, with nothing
to install: a NATS server runs inside this process, and each run is a real ` + "`k6 x mqbench run`" + `
(k6's arrival-rate executor, the mqbench module, the ledger) through a proxy that injects
known faults.

  delay: a run with every published message held --delay by the proxy (a kernel sleep,
         precise to tens of microseconds) against one without: the end-to-end 1st
         percentile must move by the delay, within --tolerance (a delay moves every sample;
         a busy moment moves only some, and the median with them: the medians' shift and the
         median from the intended send time are shown beside it).
  stall: a run of 4 x --stall at --rate in which the proxy forwards nothing either way for
         --stall (like a server stopped with SIGSTOP). Messages due during the stall wait
         for its end, so, N samples measured, a share R*(S-X)/N of them lie above X and the
         value at quantile q is S - (1-q)*N/R. The proxy times every message itself,
         from its sender to its receiver: p90 and p99 (from intended and from the send)
         must be within S/10 of the proxy's, the share above S/2 within R*(S/10)/N of
         its share, and the proxy's no lower than theory (the stall was injected); the
         burst released at the stall's end takes longer on a busy machine, and what the
         proxy saw is what mqbench must report. Every message sent must be received.

Each check prints PASS or FAIL with what was measured and what was expected. Results go to
<DIR>/selfcheck/<UTC timestamp>/: selfcheck.txt, selfcheck.json, each run's scenario and log,
and each run's own results folder under runs/ (summary.json, report.html, …). DIR is
--results, else $` + runenv.Results + `, else ./` + runenv.DefaultRoot + `.

Exit codes: 0 every check passed, 116 a check failed (or the self-check could not measure),
115 results folder not writable, 2 bad arguments.`

// Selfcheck is `k6 x mqbench selfcheck`.
func Selfcheck(gs *state.GlobalState) *cobra.Command {
	o := selfcheck.Options{}
	var results string
	c := &cobra.Command{
		Use:   "selfcheck [--delay D] [--stall S] [--rate R]",
		Short: "Check mqbench's latency on this machine: a known delay and a stall injected in-process must be reported as theory says",
		Long:  selfcheckLong,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return exitcode.New(exitcode.Usage, "mqbench selfcheck: takes no arguments, got %q (see --help)", args)
			}
			return runSelfcheck(gs, o, results)
		},
	}
	f := c.Flags()
	f.DurationVar(&o.Delay, "delay", selfcheck.DefaultDelay, "delay the proxy adds to every published message")
	f.DurationVar(&o.Tolerance, "tolerance", selfcheck.DefaultTolerance, "how far the measured shift of the e2e 1st percentile may be from --delay")
	f.DurationVar(&o.Stall, "stall", selfcheck.DefaultStall, "stall mid-cell (0: no stall check)")
	f.IntVar(&o.Rate, "rate", selfcheck.DefaultRate, "messages per second of every run")
	f.StringVar(&results, "results", "", "results root (default $"+runenv.Results+", else ./"+runenv.DefaultRoot+")")
	// The self-check's own test: the proxy injects this instead of --delay, so the delay
	// check must fail (make test proves it does).
	proxyDelay := f.Duration("proxy-delay", -1, "delay the proxy really injects (default: --delay)")
	_ = f.MarkHidden("proxy-delay")
	c.PreRun = func(*cobra.Command, []string) {
		if *proxyDelay >= 0 {
			o.ProxyDelay = proxyDelay
		}
	}
	return c
}

func runSelfcheck(gs *state.GlobalState, o selfcheck.Options, dir string) error {
	if o.Stall == 0 {
		o.Stall = -1 // the flag's 0 means no stall check; Options' zero is the default
	}
	o.K6 = "k6" // checked below, once the options are
	if err := o.Check(); err != nil {
		return exitcode.New(exitcode.Usage, "mqbench selfcheck: %v", err)
	}
	if dir == "" {
		dir = runenv.Root(os.Getenv)
	}
	if err := checkWritable(dir); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return exitcode.New(exitcode.Usage, "mqbench selfcheck: cannot find this k6 binary: %v", err)
	}
	o.K6, o.Root = exe, dir
	return RunSelfcheck(gs, o)
}

// RunSelfcheck runs the self-check with o (K6 and Root set) and prints its report; the error
// carries the exit code. Tests call it with a k6 binary of their choice.
func RunSelfcheck(gs *state.GlobalState, o selfcheck.Options) error {
	start := time.Now()
	runs, took := o.Plan()
	fmt.Fprintf(gs.Stderr, "mqbench selfcheck: %d runs of k6 x mqbench run, about %.0f s\n", runs, took.Seconds())
	res, err := selfcheck.Run(o)
	if err != nil {
		return exitcode.New(exitcode.SelfcheckFailed, "mqbench selfcheck: could not measure after %.0f s: %v", time.Since(start).Seconds(), err)
	}
	fmt.Fprint(gs.Stdout, selfcheck.Text(res))
	if !res.Pass {
		return exitcode.New(exitcode.SelfcheckFailed, "mqbench selfcheck: failed: mqbench did not report the injected faults as it must (see the FAIL lines)")
	}
	return nil
}
