package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.k6.io/k6/v2/cmd/state"
)

// validate says which commands a scenario's faults would run, so a reviewer sees them before
// anyone runs it with --allow-fault-commands (finding 1).
func TestValidateNamesFaultCommands(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.yaml")
	body := "name: x\nbroker: { type: nats, url: \"nats://127.0.0.1:4222\" }\n" +
		"workload: { destination: x, duration: 10s }\nmatrix: [{ size: 100B, rate: 10 }]\n" +
		"faults:\n  kill: \"/bin/sh -c id>/tmp/pwned_{node}.txt\"\n  start: \"up {n}\"\n" +
		"  schedule: [{ at: 1s, node: n1, restart_after: 1s }]\n"
	plain := filepath.Join(dir, "plain.yaml")
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, []byte(strings.Replace(body[:strings.Index(body, "faults:")], "name: x", "name: plain", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	gs := state.NewGlobalState(context.Background())
	var stdout bytes.Buffer
	gs.Stdout.Writer = &stdout
	code := -1
	gs.OSExit = func(c int) { code = c }
	root := New(gs)
	root.SetArgs([]string{"validate", file, plain})
	_ = root.Execute()
	want := "ok  " + file + ` (nats, 1 cell; runs commands with --allow-fault-commands: kill: "/bin/sh -c id>/tmp/pwned_{node}.txt", start: "up {n}")`
	if code > 0 || !strings.Contains(stdout.String(), want+"\n") || !strings.Contains(stdout.String(), "ok  "+plain+" (nats, 1 cell)\n") {
		t.Errorf("exit %d, stdout %q; want a line %q and the plain file's without commands", code, stdout.String(), want)
	}
}
