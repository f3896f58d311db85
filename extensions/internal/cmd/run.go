// Package cmd holds the `k6 x mqbench` commands, one file each. A command returns an error
// carrying its exit code (internal/exitcode); only the cobra glue turns it into an exit.
package cmd

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/handover"
	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/mqbench/xk6-mqbench/internal/script"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

const runLong = `Run a scenario: k6 runs it with the entry script this binary embeds, so nothing but the
binary and the scenario file is needed, from any folder.

Every ` + "`k6 run`" + ` flag passes through (--out, -e, --quiet, --address, --summary-export, …).
-e NAME=VALUE (--env) also gives the scenario's ${NAME} its value (over the environment's).
mqbench sets --address "" (no REST API port to collide on) and, without a terminal, --quiet;
a flag you give wins. A scenario with a search block runs as a capacity search (see search).

Results go to <DIR>/<scenario>/<UTC timestamp>/ (summary.json, summary.txt, report.html,
junit.xml, hgrm/, hdr/, hlog/), DIR being --results, else $` + runenv.Results + `, else ./` + runenv.DefaultRoot + `.
Relative paths in the scenario (payload.file) are read relative to the scenario file.

A scenario's faults run their kill and start commands on this machine only with
--allow-fault-commands (or ` + runenv.AllowFaultCommands + `=1); without it such a scenario exits 111
before anything connects (k6 x mqbench validate lists the commands).

Exit codes are the run's own: 0 every threshold held, 99 a threshold failed, 105 stopped by a
signal, 111 invalid scenario, 112 broker unreachable, 113 broker refused, 114 invalid
distributed runner, 115 results folder not writable, 117 the load generator could not hold
the schedule (dropped iterations) while every broker threshold held, 2 bad arguments.`

// Run is `k6 x mqbench run FILE [k6 run flags]`.
func Run(gs *state.GlobalState) *cobra.Command {
	return &cobra.Command{
		Use:                "run FILE [--results DIR] [--allow-fault-commands] [k6 run flags]",
		Short:              "Run a scenario (k6 run with the embedded entry script; results in ./results)",
		Long:               runLong,
		DisableFlagParsing: true, // k6 run's flags are parsed by k6 run's own flag set
		RunE: func(c *cobra.Command, args []string) error {
			return run(gs, c, args)
		},
	}
}

// run validates the arguments, the scenario and the results folder before k6 starts, then
// runs k6's own run command in this process with the embedded script on its stdin.
func run(gs *state.GlobalState, c *cobra.Command, args []string) error {
	resultsDir, args, err := takeResults(args)
	if err != nil {
		return err
	}
	allow, args := takeAllowFaultCommands(args)
	if wantsHelp(args) {
		return c.Help()
	}
	k6run, _, err := c.Root().Find([]string{"run"})
	if err != nil || k6run == nil || k6run.RunE == nil {
		return exitcode.New(exitcode.Usage, "mqbench run: this k6 binary has no run command")
	}
	// k6 run's flag set parses everything once (it knows which flags take a value, so the
	// scenario file is told apart from a flag's value wherever it stands); mqbench's defaults
	// come first, so a flag the user gives wins.
	defaults := []string{"--address", ""}
	progress := ""
	if !runenv.Flag(os.Getenv, runenv.K6Progress) {
		// mqbench owns the display: k6's VU bars show configured rates and a consume bar
		// stuck at 0 %; mqbench's line shows achieved rates and latency (runner/progress.go).
		defaults = append(defaults, "--quiet")
		if _, set := os.LookupEnv(runenv.Progress); !set && gs.Stderr.IsTTY {
			progress = "1s"
		}
	}
	if err := k6run.ParseFlags(append(defaults, args...)); err != nil {
		return exitcode.New(exitcode.Usage, "mqbench run: %v (k6 x mqbench run --help)", err)
	}
	if err := exportEnvFlags(k6run); err != nil {
		return err
	}
	files := k6run.Flags().Args()
	switch {
	case len(files) == 0:
		return exitcode.New(exitcode.Usage, "mqbench run: name a scenario file: k6 x mqbench run FILE [k6 run flags]")
	case len(files) > 1:
		return exitcode.New(exitcode.Usage, "mqbench run: one scenario file per run; got %s", strings.Join(files, ", "))
	}
	file := files[0]
	sc, err := loadScenario("run", file)
	if err != nil {
		return err
	}
	printOutputWarnings(gs.Stderr, k6run.Flags(), sc)
	if resultsDir == "" {
		resultsDir = runenv.Root(os.Getenv)
	}
	if err := checkWritable(resultsDir); err != nil {
		return err
	}
	// The JS module in this process takes these from the hand-over, a search's steps from
	// their environment; the opt-in is checked where every run loads (jsmodule).
	h := &handover.Run{File: file, Scenario: sc, Root: resultsDir, AllowFaultCommands: allow, Progress: progress}
	if sc.Search != nil {
		return search(gs, h, withoutFile(args, file))
	}
	if err := k6run.Flags().Set("env", runenv.Entry(runenv.Scenario, file)); err != nil {
		return exitcode.New(exitcode.Usage, "mqbench run: %v", err)
	}
	setEnvDefaults(gs)
	gs.Stdin = bytes.NewReader(script.Source) // k6 run reads the script "-" from stdin
	takeBack := handover.Give(h)
	err = k6run.RunE(k6run, []string{"-"})
	takeBack()
	if exitcode.Of(err) == exitcode.ThresholdsFailed {
		if verdict := breaches(h.Dir()); verdict != nil {
			return verdict
		}
	}
	return err
}

// breaches names every failed threshold as the scenario wrote it, with its measured value,
// read back from the summary.json of the run's own folder (the module hands it back: another
// run of the scenario may be writing beside it): k6's own message names mqbench's internal
// verdict gauge and a time limit converted to milliseconds. A run whose only failures are
// dropped iterations is not the broker's breach: exit 117, saying so. nil without a folder
// or summary (a runner of a distributed run writes a shard): k6's message stands.
func breaches(dir string) *exitcode.Error {
	if dir == "" {
		return nil
	}
	run, err := results.Load(dir)
	if err != nil {
		return nil
	}
	lines := report.Breaches(&run.Summary)
	if len(lines) == 0 {
		return nil
	}
	if results.GeneratorOnly(&run.Summary) {
		return exitcode.New(exitcode.GeneratorBehind, "mqbench: %s:\n  %s", results.GeneratorVerdict, strings.Join(lines, "\n  "))
	}
	return exitcode.New(exitcode.ThresholdsFailed, "mqbench: %d of %d thresholds failed:\n  %s", len(lines), len(run.Thresholds), strings.Join(lines, "\n  "))
}

// exportEnvFlags puts k6's -e NAME=VALUE (--env) values into the process environment: k6
// hands them to the script's __ENV only, and the scenario's ${NAME} is expanded by Go (run's
// early validation here, the JS module's load in this process, a search's steps) from the
// process environment, so `-e KAFKA_URL=…` said "KAFKA_URL is not set".
func exportEnvFlags(k6run *cobra.Command) error {
	envs, err := k6run.Flags().GetStringArray("env")
	if err != nil {
		return nil // a k6 without -e: nothing to export
	}
	for _, kv := range envs {
		name, value, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
			// Docker's -e NAME passes the variable on; here the environment already does.
			return exitcode.New(exitcode.Usage, "mqbench run: -e %s: give NAME=VALUE (a variable already set in the environment needs no -e)", name)
		case name == "":
			return exitcode.New(exitcode.Usage, "mqbench run: -e %s: the variable's name is missing: give NAME=VALUE", kv)
		case !envName.MatchString(name):
			return exitcode.New(exitcode.Usage, "mqbench run: -e %s: a variable name is letters, digits and _, not starting with a digit", name)
		case name == runenv.Scenario:
			continue // run names the scenario itself
		}
		if err := os.Setenv(name, value); err != nil {
			return exitcode.New(exitcode.Usage, "mqbench run: -e %s: %v", name, err)
		}
	}
	return nil
}

// envName is k6's rule for an -e name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// takeResults removes --results DIR (or --results=DIR) from the arguments.
func takeResults(args []string) (dir string, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--results":
			if i+1 >= len(args) || args[i+1] == "" {
				return "", nil, exitcode.New(exitcode.Usage, "mqbench run: --results needs a folder")
			}
			dir = args[i+1]
			i++
		case strings.HasPrefix(a, "--results="):
			if dir = strings.TrimPrefix(a, "--results="); dir == "" {
				return "", nil, exitcode.New(exitcode.Usage, "mqbench run: --results needs a folder")
			}
		default:
			rest = append(rest, a)
		}
	}
	return dir, rest, nil
}

// takeAllowFaultCommands removes --allow-fault-commands from the arguments.
func takeAllowFaultCommands(args []string) (allow bool, rest []string) {
	for _, a := range args {
		if a == "--allow-fault-commands" {
			allow = true
			continue
		}
		rest = append(rest, a)
	}
	return allow, rest
}

func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			return true
		}
		if a == "--" {
			return false
		}
	}
	return false
}

// withoutFile drops the scenario file (its last occurrence as a whole argument) from args.
func withoutFile(args []string, file string) []string {
	out := append([]string(nil), args...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] == file {
			return append(out[:i], out[i+1:]...)
		}
	}
	return out
}

// loadScenario checks the file exists and is a file, then parses and validates it: every
// problem is reported before anything connects. Messages start with the command's name.
func loadScenario(command, file string) (*scenario.Scenario, error) {
	st, err := os.Stat(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, exitcode.New(exitcode.InvalidScenario, "mqbench %s: scenario file not found: %s", command, file)
	case err != nil:
		return nil, exitcode.New(exitcode.InvalidScenario, "mqbench %s: cannot read scenario file %s: %v", command, file, unwrapPath(err))
	case st.IsDir():
		return nil, exitcode.New(exitcode.InvalidScenario, "mqbench %s: %s is a folder, not a scenario file", command, file)
	}
	sc, err := scenario.Load(file)
	if err != nil {
		return nil, exitcode.New(exitcode.InvalidScenario, "%s", err.Error())
	}
	return sc, nil
}

// checkWritable creates the results folder if needed and proves a file can be written in it,
// so a run never measures for minutes and then loses its results.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return exitcode.New(exitcode.ResultsUnwritable, "mqbench run: results folder %s cannot be created: %v", dir, unwrapPath(err))
	}
	f, err := os.CreateTemp(dir, ".mqbench-write-check-*")
	if err != nil {
		return exitcode.New(exitcode.ResultsUnwritable, "mqbench run: results folder %s cannot be written: %v", dir, unwrapPath(err))
	}
	name := f.Name()
	_ = f.Close()
	_ = os.Remove(name)
	return nil
}

// unwrapPath keeps the reason of a *PathError (its path is already in the message).
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// setEnvDefaults: whatever main package built this k6 (make build, xk6), a run does not
// phone home, and k6's InfluxDB output pushes every 200 ms (a second of points at high rates
// passes InfluxDB's 25 MB request limit and k6 would drop it). With k6's web dashboard on, it
// listens on 127.0.0.1 (k6's default is every interface) and shows mqbench's per-second
// statistics each on its own, with mqbench's layout (k6's own mixes them: docs/web-dashboard.md).
// The environment wins.
func setEnvDefaults(gs *state.GlobalState) {
	defaults := map[string]string{
		"K6_NO_USAGE_REPORT":        "true",
		"K6_INFLUXDB_PUSH_INTERVAL": "200ms",
	}
	if on, _ := strconv.ParseBool(gs.Env["K6_WEB_DASHBOARD"]); on {
		defaults["K6_WEB_DASHBOARD_HOST"] = "127.0.0.1"
		defaults["K6_WEB_DASHBOARD_TAGS"] = catalog.StatTag
		if _, set := gs.Env[webDashboardConfig]; !set {
			if path, err := writeDashboardLayout(); err == nil {
				defaults[webDashboardConfig] = path
			} else {
				gs.Logger.WithError(err).Warn("k6's own web dashboard layout is used (mqbench's could not be written)")
			}
		}
	}
	for k, v := range defaults {
		if _, set := gs.Env[k]; !set {
			gs.Env[k] = v
		}
	}
}

// webDashboardConfig is the variable k6's web dashboard reads its layout from.
const webDashboardConfig = "XK6_DASHBOARD_CONFIG"

// writeDashboardLayout writes mqbench's web dashboard layout to the temporary folder (the
// dashboard reads a path), named by its content so that runs share one file, and returns it.
func writeDashboardLayout() (string, error) {
	sum := sha256.Sum256(script.WebDashboard)
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mqbench-web-dashboard-%x.json", sum[:6]))
	if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, script.WebDashboard) {
		return path, nil
	}
	f, err := os.CreateTemp(os.TempDir(), "mqbench-web-dashboard-*")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(script.WebDashboard); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return path, os.Rename(f.Name(), path) // whole or not at all, for a run beside this one
}
