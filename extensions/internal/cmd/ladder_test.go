package cmd

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"go.k6.io/k6/v2/cmd/state"
)

// A ladder's command line is checked before any rung runs; each mistake is named. (Its rungs
// need a k6 binary: the itests climb one.)
func TestLadderBadArguments(t *testing.T) {
	ok := []string{"ladder", "--name", "n", "--broker", "{ type: nats, url: embedded }", "--dir", t.TempDir()}
	for _, c := range []struct {
		args []string
		line string
	}{
		{[]string{"ladder", "1000"}, "mqbench ladder: --name, --broker and --dir are required"},
		{ok, "mqbench ladder: name the ladder's rates"},
		{append(ok, "1k"), `mqbench ladder: rate "1k": give whole messages per second`},
		{append(ok, "--rule", "fast", "1000"), `mqbench ladder: --rule "fast": give one of acked, average, held, on-time, rates`},
		{append(ok, "--line", "p99", "1000"), `mqbench ladder: --line "p99": give columns among`},
		{append(ok, "--per-batch", "0", "1000"), "mqbench ladder: --per-batch 0: give a positive number"},
		{append(ok, "1000", "--"), "mqbench ladder: after --, name the peer command"},
		{[]string{"ladder", "--name", "n", "--broker", "[nats]", "--dir", t.TempDir(), "1000"}, "mqbench ladder: --broker: give a mapping"},
	} {
		wantUsage(t, c.args, c.line)
	}
}

// wantUsage runs mqbench with args and wants exit 2 and line on stderr.
func wantUsage(t *testing.T, args []string, line string) {
	t.Helper()
	gs := state.NewGlobalState(context.Background())
	var stderr bytes.Buffer
	gs.Stderr.Writer = &stderr
	code := -1
	gs.OSExit = func(c int) { code = c }
	root := New(gs)
	root.SetArgs(args)
	_ = root.Execute()
	if code != exitcode.Usage || !bytes.Contains(stderr.Bytes(), []byte(line)) {
		t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", args, code, stderr.String(), exitcode.Usage, line)
	}
}

// --write writes the one rate's scenario and runs nothing; it takes one rate.
func TestLadderWrite(t *testing.T) {
	dir := t.TempDir()
	args := []string{"ladder", "--name", "n", "--broker", "{ type: nats, url: embedded }", "--dir", dir, "--write", "lat-1000", "--batch", "4", "--consumers", "0"}
	wantUsage(t, append(append([]string{}, args...), "1000", "2000"), "mqbench ladder: --write takes one rate, got 2")
	wantUsage(t, []string{"ladder", "--name", "n", "--broker", "{ type: nats, url: embedded }", "--dir", dir, "--batch", "-4", "1000"},
		"mqbench ladder: --batch -4: give a positive number")
	gs := state.NewGlobalState(context.Background())
	var stdout bytes.Buffer
	gs.Stdout.Writer = &stdout
	root := New(gs)
	root.SetArgs(append(args, "1000"))
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "lat-1000.yaml")
	sc, err := scenario.Load(file)
	if strings.TrimSpace(stdout.String()) != file || err != nil || sc.Cells[0].Batch != 4 || sc.Cells[0].Rate != 1000 || sc.Cells[0].Consumers != 0 {
		t.Errorf("stdout %q, scenario %+v, %v", stdout.String(), sc, err)
	}
}
