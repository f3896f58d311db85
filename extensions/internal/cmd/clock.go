package cmd

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/mqbench/xk6-mqbench/internal/clocksync"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// Clock is `k6 x mqbench clock --listen ADDR`: the reference clock of a distributed run with
// a shared destination. Each runner (MQ_CLOCK_REF=ADDR) measures its clock's offset to it
// before, during and after its cells (clocksync), and corrects the times it stamps.
func Clock(gs *state.GlobalState) *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "clock --listen ADDR",
		Short: "Serve the reference clock the runners of a shared-destination run measure their offsets to",
		Long: fmt.Sprintf(`Serve the reference clock of a distributed run with a shared destination: each runner
started with MQ_CLOCK_REF=ADDR measures its clock's offset to this one with timestamped round
trips (TCP), corrects every time it stamps, and reports offset, drift and uncertainty (half
the round trip). Runs until interrupted. A listen address that cannot be bound exits 2.

Anything that reaches the address may connect, so a connection is closed after %v without a
complete request or %.0fs in all, at most %d are served at once (one more is closed at once),
and running out of file descriptors is retried, not fatal.`, clocksync.DefaultIdle, clocksync.DefaultMaxLife.Seconds(), clocksync.DefaultMaxConns),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return exitcode.New(exitcode.Usage, "mqbench clock: %v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "mqbench clock: reference clock on %s\n", ln.Addr())
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
			go func() { <-sig; _ = ln.Close() }()
			srv := &clocksync.Server{Logf: func(format string, args ...any) {
				fmt.Fprintf(cmd.ErrOrStderr(), "mqbench clock: "+format+"\n", args...)
			}}
			if err := srv.Serve(ln); err != nil {
				return exitcode.New(exitcode.Usage, "mqbench clock: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:7421", "address to serve the reference clock on")
	if gs != nil && gs.Stdout != nil {
		cmd.SetOut(gs.Stdout)
	}
	if gs != nil && gs.Stderr != nil {
		cmd.SetErr(gs.Stderr)
	}
	return cmd
}
