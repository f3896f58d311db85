// Package childrun runs a scenario as a child `k6 x mqbench run` of the same binary and reads
// its results back: the one way search, selfcheck and ladder measure a step, so a step is
// exactly what a user's run is (k6's executor, the module, the ledger, the results writers).
// It also writes the scenario files those steps run (scenario.go).
package childrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// Child is one run of a scenario file by a child k6.
type Child struct {
	K6      string   // the k6 binary: `K6 x mqbench run FILE -q ARGS… --results RESULTS`
	File    string   // the scenario file
	Results string   // the results root the child writes <Results>/<scenario>/<UTC ts>/ under
	Args    []string // further `k6 run` flags (--out, -e, …)
	Env     []string // the child's environment; nil: this process's
	Log     string   // file taking the child's stdout and stderr (created)
	// Started, when set, is given the child's process as soon as it runs (to forward a signal).
	Started func(*os.Process)
}

// Outcome is how a child ended.
type Outcome struct {
	ExitCode int    // its exit code; 128 + the signal when a signal ended it
	Stderr   string // the last 8 KB of its stderr (for the message when it failed)
	MaxRSSKB int64  // its peak resident memory (getrusage of the child: nothing else counted)
}

// Run runs the child to its end. An error means it could not run (no binary, no log file);
// any exit code is an Outcome.
func Run(c Child) (Outcome, error) {
	// --results after the caller's flags: the last one given wins, so a step always writes
	// where its caller reads.
	args := append(append([]string{"x", "mqbench", "run", c.File, "-q"}, c.Args...), "--results", c.Results)
	cmd := exec.Command(c.K6, args...)
	cmd.Env = c.Env
	logf, err := os.Create(c.Log)
	if err != nil {
		return Outcome{}, err
	}
	defer logf.Close()
	var tail tailBuffer
	cmd.Stdout = logf
	cmd.Stderr = io.MultiWriter(logf, &tail)
	if err := cmd.Start(); err != nil {
		return Outcome{}, fmt.Errorf("cannot run %s: %v", c.K6, err)
	}
	if c.Started != nil {
		c.Started(cmd.Process)
	}
	err = cmd.Wait()
	out := Outcome{Stderr: tail.String()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		out.MaxRSSKB = ru.Maxrss // kilobytes on Linux
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		out.ExitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			out.ExitCode = 128 + int(ws.Signal())
		}
	case err != nil:
		return out, err
	}
	return out, nil
}

// Load reads the run a child wrote under results for the scenario named name (its latest
// folder, through the results package's loader and its checks).
func Load(root, name string) (*results.Run, error) {
	return results.Load(runenv.ScenarioDir(root, name))
}

// LastLines is the last n lines of s joined by " / " (a child's stderr in one message line).
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// TailLines is the last n lines of a file (a child's log, for a message); none when it
// cannot be read.
func TailLines(file string, n int) []string {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// tailBuffer keeps the last 8 KB written to it.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 8192 {
		t.b = t.b[len(t.b)-8192:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.ToValidUTF8(t.b, nil))
}
