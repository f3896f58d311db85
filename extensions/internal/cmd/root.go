package cmd

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/version"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// New is `k6 x mqbench`: running scenarios and the tools around them. Every command's RunE
// returns an error carrying its exit code; only here is it turned into one line on stderr
// and the process's exit (exit), so the commands themselves run in-process in tests.
func New(gs *state.GlobalState) *cobra.Command {
	root := &cobra.Command{Use: "mqbench", Short: "mqbench: load and latency tests for message brokers",
		SilenceErrors: true, SilenceUsage: true, SuggestionsMinimumDistance: 2,
		Version: version.Get().String()} // --version: the line `version` prints (version.go)
	root.SetVersionTemplate("{{.Version}}\n")
	// Under k6's x the root has a parent, so cobra would not refuse an unknown command: it
	// printed help and exited 0, and a pipeline went green without a run.
	root.Args = func(c *cobra.Command, args []string) error { return nil }
	root.RunE = func(c *cobra.Command, args []string) error { return exit(gs, unknownCommand(c, args)) }
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exit(gs, exitcode.New(exitcode.Usage, "mqbench: %v", err))
	})
	for _, c := range []*cobra.Command{
		Run(gs),         // run.go
		Validate(gs),    // validate.go
		Compare(gs),     // compare.go
		Explain(gs),     // explain.go
		Merge(gs),       // merge.go
		Distributed(gs), // distributed.go
		K8s(gs),         // k8s.go
		Search(gs),      // search.go
		Selfcheck(gs),   // selfcheck.go
		Ladder(gs),      // ladder.go
		Reproduce(gs),   // reproduce.go
		Figure(gs),      // figure.go
		Clock(gs),       // clock.go
		Version(gs),     // version.go
	} {
		runE, argsOK := c.RunE, c.Args
		if argsOK == nil {
			argsOK = cobra.ArbitraryArgs
		}
		// Arguments are checked here, not by cobra, so that a wrong number of them is a usage
		// error on one line (cobra handed it to k6: 255) and ends the command in tests too.
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(c *cobra.Command, args []string) error {
			if err := argsOK(c, args); err != nil {
				return exit(gs, exitcode.New(exitcode.Usage, "mqbench %s: %v", c.Name(), err))
			}
			return exit(gs, runE(c, args))
		}
		c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
			return exit(gs, flagError(c, err))
		})
		c.SilenceErrors, c.SilenceUsage = true, true
		root.AddCommand(c)
	}
	return root
}

// exit turns a command's *exitcode.Error into one line on stderr and its exit code (k6
// would log it with a level prefix); any other error (k6 run's own) goes back to k6, which
// prints it and exits with its code, as `k6 run` does.
func exit(gs *state.GlobalState, err error) error {
	var e *exitcode.Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Msg != "" {
		fmt.Fprintln(gs.Stderr, e.Msg)
	}
	gs.OSExit(e.Code)
	return nil
}

// QuietExtensionResolution turns k6's automatic extension resolution off for `k6 x mqbench …`
// when the environment does not set it: this binary already holds mqbench, and with it on,
// k6 fetches an extension catalogue over the network (printing "Loading the subcommand
// list...") before every command. It runs from the extension's init, before k6 reads the
// environment; other k6 commands keep k6's default.
func QuietExtensionResolution(args []string) {
	if len(args) < 3 || args[1] != "x" || args[2] != "mqbench" {
		return
	}
	if _, set := os.LookupEnv("K6_AUTO_EXTENSION_RESOLUTION"); !set {
		_ = os.Setenv("K6_AUTO_EXTENSION_RESOLUTION", "false")
	}
}

// flagError is a command's bad flag: a bad value of k8s's is an invalid scenario (its flags
// describe the run), an unknown flag and every other command's bad flag a usage error.
func flagError(c *cobra.Command, err error) error {
	code := exitcode.Usage
	if c.Name() == "k8s" && !strings.HasPrefix(err.Error(), "unknown ") {
		code = exitcode.InvalidScenario
	}
	return exitcode.New(code, "mqbench %s: %v", c.Name(), err)
}

// unknownCommand is `k6 x mqbench` without a command or with one that does not exist: a
// usage error naming cobra's suggestion, or the commands when it has none.
func unknownCommand(root *cobra.Command, args []string) error {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	list := "commands: " + strings.Join(names, ", ")
	if len(args) == 0 {
		return exitcode.New(exitcode.Usage, "mqbench: name a command (%s; k6 x mqbench --help)", list)
	}
	if s := root.SuggestionsFor(args[0]); len(s) > 0 {
		return exitcode.New(exitcode.Usage, "mqbench: unknown command %q (did you mean %q?)", args[0], s[0])
	}
	return exitcode.New(exitcode.Usage, "mqbench: unknown command %q (%s)", args[0], list)
}
