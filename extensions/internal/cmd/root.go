package cmd

import (
	"errors"
	"fmt"
	"os"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// New is `k6 x mqbench`: running scenarios and the tools around them. Every command's RunE
// returns an error carrying its exit code; only here is it turned into one line on stderr
// and the process's exit (exit), so the commands themselves run in-process in tests.
func New(gs *state.GlobalState) *cobra.Command {
	root := &cobra.Command{Use: "mqbench", Short: "mqbench: load and latency tests for message brokers"}
	for _, c := range []*cobra.Command{
		Run(gs),       // run.go
		Validate(gs),  // validate.go
		Compare(gs),   // compare.go
		Explain(gs),   // explain.go
		Merge(gs),     // merge.go
		K8s(gs),       // k8s.go
		Search(gs),    // search.go
		Selfcheck(gs), // selfcheck.go
		Clock(gs),     // clock.go
	} {
		runE := c.RunE
		c.RunE = func(c *cobra.Command, args []string) error { return exit(gs, runE(c, args)) }
		c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
			return exit(gs, flagError(c, err))
		})
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

// flagError is a command's bad flag: k8s's is an invalid scenario (its flags describe the
// run), every other command's a usage error.
func flagError(c *cobra.Command, err error) error {
	code := exitcode.Usage
	if c.Name() == "k8s" {
		code = exitcode.InvalidScenario
	}
	return exitcode.New(code, "mqbench %s: %v", c.Name(), err)
}
