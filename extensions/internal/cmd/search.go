package cmd

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/handover"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	searchpkg "github.com/mqbench/xk6-mqbench/internal/search"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

const searchLong = `Find, per cell, the highest fixed rate the broker sustains within the scenario's criterion
(its search block: max_rate, step, precision, confirm, backlog_growth). A step is one
` + "`k6 x mqbench run`" + ` of a one-cell scenario at a fixed rate for search.step; it holds when every
threshold of the cell holds (exit 0: no dropped iteration either) and the backlog when its
producers stop is at most backlog_growth of what it sent. From the cell's rate the search doubles
until a step fails or max_rate holds, then bisects between the last pass and the first failure
until (fail - pass) / pass < precision, then confirms the rate found with a run of
search.confirm; a confirming run that fails makes that rate a failure and the search goes on
below it (at most 3 confirming runs per cell). If the cell's rate already fails, it halves down
to 1/16 of it before reporting "no rate held". ` + "`k6 x mqbench run`" + ` of a scenario with a search
block does the same.

Results: <` + runenv.Results + ` or ` + runenv.DefaultRoot + `>/<scenario>/<UTC ts>/search.json, search.txt (printed at the
end), search.html (latency vs throughput per cell), and steps/<cell>-<rate>/ holding each
step's scenario, k6.log and its own results folder (summary.json, report.html, …).

Any flag after SCENARIO goes to every step's k6 run (--out, -e, …).

Exit codes: 0 every cell's confirming run held, 99 a confirming run failed or no rate held,
111 invalid scenario (or one without a search block), 112/113 a step could not reach or was
refused by the broker, 105 stopped by a signal (what was measured is written), 118 a step could not
run or its results could not be read, 2 bad arguments.`

// Search is `k6 x mqbench search`: a capacity search, one k6 run per step.
func Search(gs *state.GlobalState) *cobra.Command {
	return &cobra.Command{
		Use:                "search SCENARIO [k6 run flags]",
		Short:              "Find each cell's highest sustainable rate: k6 runs stepping up and bisecting, then a confirming run (search.json, search.html)",
		Long:               searchLong,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			if wantsHelp(args) {
				return c.Help()
			}
			file, rest, err := searchArgs(args)
			if err == nil {
				var sc *scenario.Scenario
				if sc, err = loadScenario("search", file); err == nil {
					err = search(gs, &handover.Run{File: file, Scenario: sc, Root: runenv.Root(os.Getenv)}, rest)
				}
			}
			return err
		},
	}
}

// searchArgs splits the arguments: the scenario (the first one not a flag) and the rest for
// every step's k6 run. --script (a path to the entry script) is no longer needed: each step
// runs the embedded one; it is accepted and ignored so existing command lines keep working.
func searchArgs(args []string) (file string, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--script":
			i++
		case strings.HasPrefix(a, "--script="):
		case file == "" && !strings.HasPrefix(a, "-"):
			file = a
		default:
			rest = append(rest, a)
		}
	}
	if file == "" {
		return "", nil, exitcode.New(exitcode.Usage, "mqbench search: name a scenario file: k6 x mqbench search SCENARIO [k6 run flags] (see --help)")
	}
	return file, rest, nil
}

// search runs the capacity search of the scenario h holds (validated); k6args go to every
// step, and h's values reach the steps through their environment.
func search(gs *state.GlobalState, h *handover.Run, k6args []string) error {
	sc := h.Scenario
	if sc.Search == nil {
		return exitcode.New(exitcode.InvalidScenario, "mqbench search: %s has no search block (search: { max_rate: … }); run it with k6 x mqbench run", sc.File)
	}
	exe, err := os.Executable()
	if err != nil {
		return exitcode.New(exitcode.Usage, "mqbench search: cannot find this k6 binary: %v", err)
	}
	r, err := searchpkg.New(searchpkg.Options{Scenario: sc, K6: exe, Args: k6args, Root: h.Root,
		Env: h.Environ(os.Environ()), Out: gs.Stdout, Log: gs.Stderr})
	if err != nil {
		return exitcode.New(exitcode.Usage, "mqbench search: %v", err)
	}
	// A signal stops the search after the running step, which k6 ends itself (what it measured
	// is kept); a terminal's Ctrl-C reaches the step directly, a SIGTERM to this process is
	// forwarded to it.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		for s := range sigs {
			r.Signal(s)
		}
	}()
	res := r.Run()
	fmt.Fprintln(gs.Stdout)
	fmt.Fprint(gs.Stdout, searchpkg.Text(res))
	fmt.Fprintf(gs.Stdout, "\nsearch.json, search.txt, search.html: %s\n", r.Dir())
	if res.Stopped != "" {
		fmt.Fprintln(gs.Stderr, "mqbench search: stopped: "+res.Stopped)
	}
	if res.ExitCode != 0 {
		return &exitcode.Error{Code: res.ExitCode, Msg: fmt.Sprintf("mqbench search: exit %d", res.ExitCode)}
	}
	return nil
}
