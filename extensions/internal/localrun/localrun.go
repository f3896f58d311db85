// Package localrun runs one distributed run on this machine the way the k6-operator runs it on
// Kubernetes: N child k6 processes get exactly the operator's runner arguments
// (--execution-segment, --execution-segment-sequence, --paused, a REST address, the
// instance_id and testrun_name tags); once every one answers on its REST address they are
// resumed one after another (PATCH /v1/status, as the operator's starter does). The caller
// merges their shards afterwards.
package localrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	"go.k6.io/k6/v2/errext/exitcodes"
)

// Config is one local distributed run.
type Config struct {
	K6       string   // the k6 binary the runners are
	Scenario string   // the scenario file
	Name     string   // the scenario's name (the testrun_name tag)
	Runners  int      // how many
	LogDir   string   // runner-<i>.log go here
	Env      []string // every runner's environment (MQ_RUNNERS, MQ_RUN_ID, … set by the caller)
	// Skews: runner i's MQ_TEST_ONLY_CLOCK_SKEW (tests only), by index; missing or "": none.
	Skews   []string
	SkewVar string   // the name of that variable
	Args    []string // further `k6 run` flags, after the operator's
	// Ready bounds the wait for a runner's REST API (setup has not run yet: it is paused).
	Ready time.Duration
}

// Failure is a runner that ended before it could be resumed, or never answered.
type Failure struct {
	Runner   int
	ExitCode int // its exit code, -1 when it was still running (it never answered)
	Log      string
	Tail     string // the end of its log
}

func (f *Failure) Error() string {
	what := "exited " + strconv.Itoa(f.ExitCode)
	if f.ExitCode < 0 {
		what = "did not answer on its REST address"
	}
	return fmt.Sprintf("runner %d %s before the run started; end of %s:\n%s", f.Runner, what, f.Log, f.Tail)
}

// portTries bounds the restarts of a runner whose REST port was taken between the pick and
// its bind (k6 exits at once, code CannotStartRESTAPI).
const portTries = 5

// Run starts the runners, resumes them once all answer, and waits for them to end. It
// returns each runner's exit code (index i-1 for runner i), or a *Failure when one did not
// come up (the others are then killed). Ending ctx interrupts the runners (they write what
// they measured) once they run, and kills them before.
func Run(ctx context.Context, c Config) ([]int, error) {
	runners := make([]*runner, c.Runners)
	killAll := func() {
		for _, r := range runners {
			if r != nil {
				r.kill()
			}
		}
	}
	defer killAll()
	for i := range runners {
		r, err := start(c, i+1)
		if err != nil {
			return nil, err
		}
		runners[i] = r
	}
	client := &http.Client{Timeout: 2 * time.Second}
	for i, r := range runners {
		for try := 1; ; try++ {
			err := r.awaitAPI(ctx, client, c.Ready)
			if err == nil {
				break
			}
			if r.exitCode() == int(exitcodes.CannotStartRESTAPI) && try < portTries {
				if runners[i], err = start(c, i+1); err != nil {
					return nil, err
				}
				r = runners[i]
				continue
			}
			return nil, err
		}
	}
	for _, r := range runners {
		if err := r.resume(ctx, client); err != nil {
			return nil, err
		}
	}
	// Interrupted: each runner stops as k6 does on Ctrl-C and writes what it measured.
	stop := context.AfterFunc(ctx, func() {
		for _, r := range runners {
			_ = r.cmd.Process.Signal(os.Interrupt)
		}
	})
	codes := make([]int, len(runners))
	for i, r := range runners {
		<-r.done
		codes[i] = r.exitCode()
	}
	stop()
	runners = nil // ended: nothing to kill
	return codes, nil
}

// Segment is runner i's (1-based) execution segment of n: the operator's (i-1)/n:i/n.
func Segment(i, n int) string { return frac(i-1, n) + ":" + frac(i, n) }

// Sequence is the execution segment sequence of n runners: 0,1/n,…,1.
func Sequence(n int) string {
	parts := make([]string, n+1)
	for i := range parts {
		parts[i] = frac(i, n)
	}
	return strings.Join(parts, ",")
}

func frac(i, n int) string {
	switch i {
	case 0:
		return "0"
	case n:
		return "1"
	}
	return strconv.Itoa(i) + "/" + strconv.Itoa(n)
}

// runner is one started child.
type runner struct {
	no   int
	addr string
	log  string
	cmd  *exec.Cmd
	done chan struct{} // closed when it ended
	err  error         // Wait's, once done
}

func start(c Config, no int) (*runner, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("runner %d: no free port for its REST address: %v", no, err)
	}
	r := &runner{no: no, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), log: LogFile(c.LogDir, no), done: make(chan struct{})}
	args := append([]string{"x", "mqbench", "run", c.Scenario, "--quiet",
		"--execution-segment=" + Segment(no, c.Runners), "--execution-segment-sequence=" + Sequence(c.Runners),
		"--address=" + r.addr, "--paused", "--tag", "instance_id=" + strconv.Itoa(no), "--tag", "testrun_name=" + c.Name}, c.Args...)
	r.cmd = exec.Command(c.K6, args...)
	skew := ""
	if no-1 < len(c.Skews) {
		skew = c.Skews[no-1]
	}
	r.cmd.Env = append(append([]string{}, c.Env...), c.SkewVar+"="+skew)
	logf, err := os.Create(r.log)
	if err != nil {
		return nil, err
	}
	r.cmd.Stdout, r.cmd.Stderr = logf, logf
	if err := r.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("runner %d: cannot run %s: %v", no, c.K6, err)
	}
	go func() {
		r.err = r.cmd.Wait()
		logf.Close()
		close(r.done)
	}()
	return r, nil
}

// freePort is a port the kernel gave a listener on 127.0.0.1 a moment ago (free then; a
// runner that finds it taken is started again on another).
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// awaitAPI waits until the runner's REST API answers, it ends, or ready passes.
func (r *runner) awaitAPI(ctx context.Context, client *http.Client, ready time.Duration) error {
	deadline := time.Now().Add(ready)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.addr+"/v1/status", nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-r.done:
			return r.failure()
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return r.failure()
		}
	}
}

// resume starts the paused runner's test (the operator's starter: PATCH /v1/status).
func (r *runner) resume(ctx context.Context, client *http.Client) error {
	body := []byte(`{"data":{"type":"status","id":"default","attributes":{"paused":false}}}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, "http://"+r.addr+"/v1/status", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("runner %d: resume: %v", r.no, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("runner %d: resume: %s", r.no, resp.Status)
	}
	return nil
}

// exitCode is the runner's exit code once it ended, -1 before.
func (r *runner) exitCode() int {
	select {
	case <-r.done:
	default:
		return -1
	}
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		return ee.ExitCode()
	}
	if r.err != nil {
		return -1
	}
	return 0
}

func (r *runner) failure() *Failure {
	return &Failure{Runner: r.no, ExitCode: r.exitCode(), Log: r.log, Tail: strings.Join(childrun.TailLines(r.log, 20), "\n")}
}

// kill ends a runner still running and waits for it.
func (r *runner) kill() {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Kill()
	<-r.done
}

// LogFile is runner no's log in dir.
func LogFile(dir string, no int) string { return filepath.Join(dir, "runner-"+strconv.Itoa(no)+".log") }
