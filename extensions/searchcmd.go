package mqbench

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/mqbench/xk6-mqbench/internal/search"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// ExitSearchUsage: bad arguments to `k6 x mqbench search`.
const ExitSearchUsage = 2

const searchLong = `Find, per cell, the highest fixed rate the broker sustains within the scenario's criterion
(its search block: max_rate, step, precision, confirm, backlog_growth). A step is one
` + "`k6 run`" + ` of a one-cell scenario at a fixed rate for search.step; it holds when every threshold
of the cell holds (k6 exits 0: no dropped iteration either) and the backlog when its producers
stop is at most backlog_growth of what it sent. From the cell's rate the search doubles until a
step fails or max_rate holds, then bisects between the last pass and the first failure until
(fail - pass) / pass < precision, then confirms the rate found with a run of search.confirm;
a confirming run that fails makes that rate a failure and the search goes on below it (at most
3 confirming runs per cell). If the cell's rate already fails, it halves down to 1/16 of it
before reporting "no rate held".

Results: <MQ_RESULTS or results>/<scenario>/<UTC ts>/search.json, search.txt (printed at the
end), search.html (latency vs throughput per cell), and steps/<cell>-<rate>/ holding each
step's scenario, k6.log and its own results folder (summary.json, report.html, …).

Any flag after SCENARIO goes to every step's k6 run (--out, -e, …); --script names lib/mqbench.js
when it is not beside the binary (../lib/mqbench.js) or in ./lib.

Exit codes: 0 every cell's confirming run held, 99 a confirming run failed or no rate held,
111 invalid scenario (or one without a search block), 112/113 a step could not reach or was
refused by the broker, 105 stopped by a signal (what was measured is written), 2 bad arguments.`

// searchCommand is `k6 x mqbench search`: a capacity search, one k6 run per step.
func searchCommand(gs *state.GlobalState) *cobra.Command {
	return &cobra.Command{
		Use:                "search SCENARIO [--script lib/mqbench.js] [k6 run flags]",
		Short:              "Find each cell's highest sustainable rate: k6 runs stepping up and bisecting, then a confirming run (search.json, search.html)",
		Long:               searchLong,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			file, script, k6args, help, err := searchArgs(args)
			if help {
				return cmd.Help()
			}
			if err != nil {
				fatal(ExitSearchUsage, "mqbench search: "+err.Error())
			}
			code := runSearch(gs, file, script, k6args)
			if code != 0 {
				os.Exit(code)
			}
			return nil
		},
	}
}

// searchArgs splits the arguments: the scenario, --script, and the rest for k6 run.
func searchArgs(args []string) (file, script string, rest []string, help bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help":
			return "", "", nil, true, nil
		case a == "--script":
			if i+1 >= len(args) {
				return "", "", nil, false, fmt.Errorf("--script needs a path")
			}
			script = args[i+1]
			i++
		case strings.HasPrefix(a, "--script="):
			script = strings.TrimPrefix(a, "--script=")
		case file == "" && !strings.HasPrefix(a, "-"):
			file = a
		default:
			rest = append(rest, a)
		}
	}
	if file == "" {
		return "", "", nil, false, fmt.Errorf("name a scenario file: k6 x mqbench search SCENARIO [k6 run flags] (see --help)")
	}
	return file, script, rest, false, nil
}

func runSearch(gs *state.GlobalState, file, script string, k6args []string) int {
	sc, err := scenario.Load(file)
	if err != nil {
		fmt.Fprintln(gs.Stderr, err)
		return ExitInvalidScenario
	}
	if sc.Search == nil {
		fmt.Fprintf(gs.Stderr, "mqbench search: %s has no search block (search: { max_rate: … }); run it with scripts/run.sh\n", file)
		return ExitInvalidScenario
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(gs.Stderr, "mqbench search: cannot find this k6 binary: "+err.Error())
		return ExitSearchUsage
	}
	if script == "" {
		script = filepath.Join(filepath.Dir(exe), "..", "lib", "mqbench.js")
		if _, err := os.Stat(script); err != nil {
			script = filepath.Join("lib", "mqbench.js")
		}
	}
	if script, err = filepath.Abs(script); err == nil {
		_, err = os.Stat(script)
	}
	if err != nil {
		fmt.Fprintf(gs.Stderr, "mqbench search: the k6 script lib/mqbench.js is not found (%v); give it with --script\n", err)
		return ExitSearchUsage
	}
	root := os.Getenv("MQ_RESULTS")
	if root == "" {
		root = "results"
	}
	r, err := search.New(search.Options{Scenario: sc, K6: exe, Script: script, Args: k6args, Root: root,
		Env: os.Environ(), Out: gs.Stdout, Log: gs.Stderr})
	if err != nil {
		fmt.Fprintln(gs.Stderr, "mqbench search: "+err.Error())
		return ExitSearchUsage
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
	fmt.Fprint(gs.Stdout, search.Text(res))
	fmt.Fprintf(gs.Stdout, "\nsearch.json, search.txt, search.html: %s\n", r.Dir())
	if res.Stopped != "" {
		fmt.Fprintln(gs.Stderr, "mqbench search: stopped: "+res.Stopped)
	}
	return res.ExitCode
}
