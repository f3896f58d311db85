package cmd

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	"github.com/mqbench/xk6-mqbench/internal/clocksync"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/localrun"
	"github.com/mqbench/xk6-mqbench/internal/merge"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// Distributed is `k6 x mqbench distributed FILE --runners N`: a distributed run on this
// machine, its runners started as the k6-operator starts them, then merged.
func Distributed(gs *state.GlobalState) *cobra.Command {
	return &cobra.Command{
		Use:   "distributed FILE --runners N [--results DIR] [k6 run flags]",
		Short: "Run a scenario as N local runners the way the k6-operator runs them, then merge their shards (the merge's exit code)",
		Long: `Run a scenario as a distributed run on this machine, the way the k6-operator runs one on
Kubernetes: N runners (this binary) get exactly the operator's runner arguments
(--execution-segment, --execution-segment-sequence, --paused, a REST address, the instance_id
and testrun_name tags); once every one answers on its REST address they are resumed one after
another (PATCH /v1/status, as the operator's starter does); when all have ended, their shards
are merged and the run judged as k6 x mqbench merge does.

` + runenv.RunID + ` names the run (default: the UTC timestamp and this process's id), --results or
` + runenv.Results + ` the results root. Unless ` + runenv.ClockRef + ` names another, a reference clock is served
here for the runners of a shared destination (on one host they share a clock: the measurement
then shows the method's own floor). Runner i's log is <run folder>/logs/runner-<i>.log.

Exit codes: the merge's (0 pass, 99 a threshold failed, 114 the shards do not make one run),
111 an invalid scenario (nothing started), 118 a runner did not come up (its log's end is
printed), 2 bad arguments.`,
		DisableFlagParsing: true, // the runners' k6 run flags pass through as given
		RunE: func(c *cobra.Command, args []string) error {
			if wantsHelp(args) {
				return c.Help()
			}
			return distributed(gs, args)
		},
	}
}

func distributed(gs *state.GlobalState, args []string) error {
	root, args, err := takeResults(args)
	if err != nil {
		return exitcode.New(exitcode.Usage, "mqbench distributed: --results needs a folder")
	}
	n, file, rest, err := takeRunners(args)
	if err != nil {
		return err
	}
	sc, err := loadScenario("distributed", file)
	if err != nil {
		return err
	}
	if root == "" {
		root = runenv.Root(os.Getenv)
	}
	runID := os.Getenv(runenv.RunID)
	if runID == "" {
		runID = runenv.Stamp(time.Now()) + "-" + strconv.Itoa(os.Getpid())
	}
	if _, err := runenv.SharedRunID(func(string) string { return runID }); err != nil {
		return exitcode.New(exitcode.Usage, "mqbench distributed: %v", err)
	}
	runDir := filepath.Join(runenv.ScenarioDir(root, sc.Name), runID)
	logDir := filepath.Join(runDir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return exitcode.New(exitcode.ResultsUnwritable, "mqbench distributed: %v", unwrapPath(err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := append(os.Environ(), runenv.Runners+"="+strconv.Itoa(n), runenv.RunID+"="+runID, runenv.Results+"="+root)
	if runenv.ClockAddr(os.Getenv) == "" {
		addr, closeClock, err := serveClock(filepath.Join(logDir, "clock.log"))
		if err != nil {
			return exitcode.New(exitcode.Usage, "mqbench distributed: reference clock: %v", err)
		}
		defer closeClock()
		env = append(env, runenv.ClockRef+"="+addr)
	}
	self, err := os.Executable()
	if err != nil {
		return exitcode.New(exitcode.StepFailed, "mqbench distributed: %v", err)
	}
	var skews []string
	if v := os.Getenv(runenv.TestOnlyClockSkews); v != "" {
		skews = strings.Split(v, ",")
	}
	codes, err := localrun.Run(ctx, localrun.Config{K6: self, Scenario: file, Name: sc.Name, Runners: n, LogDir: logDir,
		Env: env, Skews: skews, SkewVar: runenv.TestOnlyClockSkew, Args: rest, Ready: time.Minute})
	switch {
	case ctx.Err() != nil && err != nil:
		return exitcode.New(exitcode.Aborted, "mqbench distributed: stopped by a signal before the runners started")
	case err != nil:
		return exitcode.New(exitcode.StepFailed, "mqbench distributed: %v", err)
	}
	fmt.Fprintf(gs.Stderr, "mqbench distributed: %d runners of %s ended (run %s); logs in %s\n", n, sc.Name, runID, logDir)
	for i, code := range codes {
		if code != 0 {
			fmt.Fprintf(gs.Stderr, "mqbench distributed: runner %d exited %d; end of its log:\n%s\n", i+1, code, strings.Join(childrun.TailLines(localrun.LogFile(logDir, i+1), 5), "\n"))
		}
	}
	code, msg := mergeRun(gs.Stdout, runDir, merge.DefaultMaxSkew)
	if ctx.Err() != nil { // what the runners measured is merged and written all the same
		return exitcode.New(exitcode.Aborted, "mqbench distributed: stopped by a signal%s", map[bool]string{true: "; " + msg}[msg != ""])
	}
	if code != 0 {
		return &exitcode.Error{Code: code, Msg: msg}
	}
	return nil
}

// takeRunners takes --runners N and the scenario file out of args; the rest are k6 run flags.
func takeRunners(args []string) (n int, file string, rest []string, err error) {
	usage := func(format string, a ...any) (int, string, []string, error) {
		return 0, "", nil, exitcode.New(exitcode.Usage, "mqbench distributed: "+format, a...)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		v, isRunners := strings.CutPrefix(a, "--runners=")
		switch {
		case a == "--runners":
			if i+1 >= len(args) {
				return usage("--runners needs a number")
			}
			v, isRunners = args[i+1], true
			i++
		case !isRunners && file == "" && !strings.HasPrefix(a, "-"):
			file = a
			continue
		case !isRunners:
			rest = append(rest, a)
			continue
		}
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > runenv.MaxRunners {
			return usage("--runners must be a number from 1 to %d, got %q", runenv.MaxRunners, v)
		}
	}
	switch {
	case file == "":
		return usage("name a scenario file: k6 x mqbench distributed FILE --runners N")
	case n == 0:
		return usage("say how many runners: --runners N")
	}
	return n, file, rest, nil
}

// serveClock serves the reference clock on a port of 127.0.0.1 the kernel picks (held from
// the start: no other process can take it), logging to log.
func serveClock(log string) (addr string, closeClock func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	logf, err := os.Create(log)
	if err != nil {
		ln.Close()
		return "", nil, err
	}
	srv := &clocksync.Server{Logf: func(format string, args ...any) { fmt.Fprintf(logf, "mqbench clock: "+format+"\n", args...) }}
	done := make(chan struct{})
	go func() { _ = srv.Serve(ln); close(done) }()
	return ln.Addr().String(), func() { ln.Close(); <-done; logf.Close() }, nil
}
