package reproduce

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/bench"
	"github.com/mqbench/xk6-mqbench/internal/figure"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Section is one study of make reproduce.
type Section func(e *Env) error

// Sections are the studies by name; Order is make reproduce's default.
var Sections = map[string]Section{
	"latency":      Latency,
	"commit-logs":  CommitLogs,
	"dissecting":   Dissecting,
	"amqp":         AMQP,
	"softwaremill": SoftwareMill,
}

// Order is the sections make reproduce runs when none is named.
var Order = []string{"latency", "commit-logs", "dissecting", "amqp", "softwaremill"}

// Env is what a section works with: the bench environment (brokers it starts are stopped when
// it ends) and the study settings.
type Env struct {
	*bench.Env
	Scale float64 // REPRODUCE_SCALE
	Start bool    // REPRODUCE_START: false uses only brokers already running
}

// NewEnv is a section's environment: files in .cache/reproduce, settings from the environment.
func NewEnv(b *bench.Env) (*Env, error) {
	b.Dir = filepath.Join(b.Repo, ".cache", "reproduce")
	if err := os.MkdirAll(filepath.Join(b.Dir, "results"), 0o755); err != nil {
		return nil, err
	}
	scale, err := ParseScale(b.Setting("REPRODUCE_SCALE", "1"))
	if err != nil {
		return nil, err
	}
	return &Env{Env: b, Scale: scale, Start: b.Setting("REPRODUCE_START", "1") != "0"}, nil
}

// ParseScale reads REPRODUCE_SCALE: a fraction in (0, 1].
func ParseScale(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0 && f <= 1) {
		return 0, fmt.Errorf("REPRODUCE_SCALE must be a fraction in (0, 1], got %s", v)
	}
	return f, nil
}

// Header prints a section's heading, with the scale and the machine.
func (e *Env) Header(title string) {
	e.Printf("\n## %s\n\nscale %g, %d cores, %s\n\n", title, e.Scale, bench.Cores(), time.Now().UTC().Format("2006-01-02T15:04Z"))
}

// Table prints a Markdown table's head.
func (e *Env) Table(cols ...string) {
	e.Printf("| %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
}

// Heads of the tables the rows of rows.go fill.
var (
	latencyHead = []string{"scenario", "cell", "size", "rate", "p50 ms", "p99 ms", "p99.99 ms", "mean ± stddev ms", "held"}
	rateHead    = []string{"scenario", "cell", "size", "sent", "sender/s", "receiver/s", "e2e/s", "publish p99 ms", "e2e p99 ms", "lost"}
	ratioHead   = []string{"ratio", "mqbench", "study"}
)

// RatioRow prints a ratio table's row: a / b beside the study's figure; none when either is
// missing (a broker that did not run).
func (e *Env) RatioRow(label string, a, b *float64, study string) {
	if a != nil && b != nil {
		e.Printf("| %s | %s | %s |\n", label, bench.Ratio(*a, *b), study)
	}
}

// Up makes broker available: running already, answering at its address (a server started
// from another state folder serves all the same), or started now (and stopped at the
// section's end) unless REPRODUCE_START=0, in which case it is false with a line saying so.
func (e *Env) Up(broker string) (bool, error) {
	state, addr := e.BrokerStatus(broker)
	if state == "running" {
		return true, nil
	}
	if addr != "" {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			fmt.Fprintf(os.Stderr, "-- %s: %s answers (a server started elsewhere): using it\n", broker, addr)
			return true, nil
		}
	}
	if !e.Start {
		fmt.Fprintf(os.Stderr, "-- %s is not running and REPRODUCE_START=0: its runs are skipped\n", broker)
		return false, nil
	}
	return true, e.BrokerUp(broker)
}

// Measure runs the shipped scenario name (FROM=TO subs applied: a private broker's url) and
// reads what it measured. A threshold that failed is a result: the tables show what was
// measured.
func (e *Env) Measure(name string, subs ...string) (*results.Summary, string, error) {
	st := Study{K6: e.K6, Dir: e.Dir, Scale: e.Scale, Subs: subs}
	files, err := st.Files(filepath.Join(e.Repo, "scenarios", name+".yaml"))
	if err != nil {
		return nil, "", err
	}
	path, err := st.Run(name, files)
	if err != nil {
		return nil, "", err
	}
	if filepath.Base(path) != "summary.json" {
		return nil, path, nil // a search: its search.json
	}
	s, err := figure.Read(path)
	return s, path, err
}

// Figure is a pointer to one figure of cell id (nil when the cell is missing), for RatioRow.
func Figure(s *results.Summary, id string, of func(*results.Cell) float64) *float64 {
	for i := range s.Cells {
		if s.Cells[i].ID == id {
			v := of(&s.Cells[i])
			return &v
		}
	}
	return nil
}

// Figures of a cell the ratio tables use.
func e2eP99(c *results.Cell) float64       { return c.E2ELatency.P["p99"] }
func e2eRate(c *results.Cell) float64      { return c.E2ERate }
func senderRate(c *results.Cell) float64   { return c.SenderRate }
func receiverRate(c *results.Cell) float64 { return c.ReceiverRate }

// Script runs scripts/REL with env added to the process's, its output on stderr (the tables
// are stdout).
func (e *Env) Script(env []string, rel string, args ...string) error {
	cmd := exec.Command(filepath.Join(e.Repo, "scripts", rel), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("scripts/%s %s: %v", rel, strings.Join(args, " "), err)
	}
	return nil
}
