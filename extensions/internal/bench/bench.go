// Package bench holds the sections of `make bench` written in Go: each runs mqbench (bin/k6)
// beside a plain client program or a broker's own tool on the same machine in the same
// session and prints its table and one headline line (Headline). The shell keeps what installs
// and starts brokers and native tools (scripts/brokers, brokers/perftest).
package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	"github.com/mqbench/xk6-mqbench/internal/figure"
	"github.com/mqbench/xk6-mqbench/internal/ladder"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// Env is what every section works with.
type Env struct {
	Repo   string // the repository root
	K6     string // bin/k6
	Dir    string // .cache/bench: scenarios, logs, results
	Out    io.Writer
	Getenv func(string) string
	// started: brokers this section started (BrokerUp), stopped again by BrokerDown; mu
	// guards it (Close may come from a signal).
	mu      sync.Mutex
	started map[string]bool
}

// Section is one bench section.
type Section func(e *Env) error

// Sections are the sections written in Go, by name.
var Sections = map[string]Section{
	"soak":        Soak,
	"soak-long":   SoakLong,
	"distributed": Distributed,
	"merge":       Merge,
	"pacing":      Pacing,
	"nats":        NATS,
	"replication": Replication,
	"kafka":       Kafka,
	"rabbitmq":    RabbitMQ,
	"nsq":         NSQ,
	"mqtt":        MQTT,
	"postgres":    Postgres,
	"artemis":     Artemis,
	"max":         Max,
	"pulsar":      Pulsar,
	"rocketmq":    RocketMQ,
	"gate":        Gate,
	"stamp":       Stamp,
}

// NewEnv is the environment of a section run from the repository at repo.
func NewEnv(repo string, out io.Writer) (*Env, error) {
	e := &Env{Repo: repo, K6: filepath.Join(repo, "bin", "k6"), Dir: filepath.Join(repo, ".cache", "bench"), Out: out,
		Getenv: os.Getenv, started: map[string]bool{}}
	return e, os.MkdirAll(e.Dir, 0o755)
}

// Printf prints to the section's output.
func (e *Env) Printf(format string, args ...any) { fmt.Fprintf(e.Out, format, args...) }

// Cores is the machine's CPU count, as the tables state it.
func Cores() int { return runtime.NumCPU() }

// Setting is the environment variable name's value, else def.
func (e *Env) Setting(name, def string) string {
	if v := e.Getenv(name); v != "" {
		return v
	}
	return def
}

// Seconds reads the setting name as whole seconds like def ("60s").
func (e *Env) Seconds(name, def string) (time.Duration, error) {
	v := e.Setting(name, def)
	n, err := strconv.Atoi(strings.TrimSuffix(v, "s"))
	if err != nil || n < 1 || !strings.HasSuffix(v, "s") {
		return 0, fmt.Errorf("%s must be whole seconds like %s, got %s", name, def, v)
	}
	return time.Duration(n) * time.Second, nil
}

// Secs is d as the settings give it: whole seconds ("600s", not "10m0s").
func Secs(d time.Duration) string { return strconv.Itoa(int(d.Seconds())) + "s" }

// PositiveInt reads the setting name as a positive integer.
func (e *Env) PositiveInt(name string, def int) (int, error) {
	v := e.Setting(name, strconv.Itoa(def))
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s must be a positive integer, got %s", name, v)
	}
	return n, nil
}

// Ints reads the setting name as space-separated integers, else def.
func (e *Env) Ints(name string, def []int) ([]int, error) {
	v := e.Getenv(name)
	if v == "" {
		return def, nil
	}
	var out []int
	for _, f := range strings.Fields(v) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s must be positive integers, got %q", name, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// Ran is a child run's results and its peak resident memory.
type Ran struct {
	*results.Run
	MaxRSSMB float64
}

// Run runs spec as a child k6 (its file and log in Dir) and returns its results; an error
// when it wrote none of its own or its cells did not complete.
func (e *Env) Run(spec childrun.Spec) (Ran, error) { return e.run(spec, nil, nil) }

// RunWatched is Run with started given the child's process as soon as it runs (to sample it).
func (e *Env) RunWatched(spec childrun.Spec, started func(*os.Process)) (Ran, error) {
	return e.run(spec, nil, started)
}

// RunProcs is Run with the child's Go runtime on procs processors (GOMAXPROCS; 0: Go's
// default), as a native Go tool run beside it is, so the pair competes with the broker for
// the cores alike.
func (e *Env) RunProcs(spec childrun.Spec, procs int) (Ran, error) {
	if procs == 0 {
		return e.Run(spec)
	}
	return e.run(spec, append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs)), nil)
}

// run runs spec with env as the child's environment (nil: this process's).
func (e *Env) run(spec childrun.Spec, env []string, started func(*os.Process)) (Ran, error) {
	file := filepath.Join(e.Dir, spec.Name+".yaml")
	if _, err := childrun.WriteScenario(file, "generated by make bench", spec); err != nil {
		return Ran{}, fmt.Errorf("%s: %v", file, err)
	}
	root := filepath.Join(e.Dir, runenv.DefaultRoot)
	if err := os.RemoveAll(runenv.ScenarioDir(root, spec.Name)); err != nil {
		return Ran{}, err
	}
	log := filepath.Join(e.Dir, spec.Name+".log")
	out, err := childrun.Run(childrun.Child{K6: e.K6, File: file, Results: root, Log: log, Env: env, Started: started})
	if err != nil {
		return Ran{}, err
	}
	run, err := childrun.Load(root, spec.Name)
	switch {
	case err != nil:
		return Ran{}, fmt.Errorf("k6 wrote no summary for %s (%v); end of %s:\n%s", spec.Name, err, log, strings.Join(childrun.TailLines(log, 20), "\n"))
	case !run.Complete:
		return Ran{}, fmt.Errorf("the %s run did not complete (%s); end of %s:\n%s", spec.Name, run.Dir, log, strings.Join(childrun.TailLines(log, 20), "\n"))
	}
	return Ran{run, float64(out.MaxRSSKB) / 1024}, nil
}

// Step is a one-cell run as the ladder's rungs are made (2 s warm-up and drain, one producer
// and one consumer, precise pacing) on broker (a YAML flow mapping).
func Step(name, broker, size string, duration time.Duration) (ladder.Step, error) {
	node, err := childrun.BrokerNode(name, broker)
	if err != nil {
		return ladder.Step{}, err
	}
	return ladder.Step{Name: name, Broker: node, Size: size, Duration: duration, Warmup: 2 * time.Second, Drain: 2 * time.Second,
		Producers: 1, Consumers: 1, Pacing: "precise", LateMax: LateMax}, nil
}

// LateMax is how late a held rate's schedule may run (the ladder's on-time rule).
const LateMax = 100 * time.Millisecond

// Figures are the named figures of a run's first cell (k6 x mqbench figure's names), as floats.
func Figures(s *results.Summary, names ...string) ([]float64, error) {
	if len(names) == 0 {
		return nil, nil
	}
	if len(s.Cells) == 0 {
		return nil, fmt.Errorf("the run has no cell")
	}
	return CellFigures(s, s.Cells[0].ID, names...)
}

// CellFigures are the named figures of the run's cell id, as floats.
func CellFigures(s *results.Summary, id string, names ...string) ([]float64, error) {
	line, err := figure.Of(s, id, names)
	if err != nil {
		return nil, err
	}
	fs := strings.Fields(line)
	out := make([]float64, len(fs))
	for i, f := range fs {
		if out[i], err = strconv.ParseFloat(f, 64); err != nil {
			return nil, fmt.Errorf("figure %s: %q is not a number", names[i], f)
		}
	}
	return out, nil
}

// Ratio is a / b with two decimals, "-" when b is 0.
func Ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64)
}

// Median of vs (0 for none).
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Spread is the median, least and most of vs (zeros for none): a repeated figure and its noise.
func Spread(vs []float64) (med, lo, hi float64) {
	if len(vs) == 0 {
		return 0, 0, 0
	}
	lo, hi = vs[0], vs[0]
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	return Median(vs), lo, hi
}

// Ceiling is a ladder's highest rate held as printed: "≥ best" when it was the top rung (a
// lower bound, not a ceiling).
func Ceiling(best, top int) string {
	if best < top {
		return strconv.Itoa(best)
	}
	return "≥ " + strconv.Itoa(best)
}

// HeadlineMark starts a section's headline line: each section states its one headline ratio
// (mqbench ÷ the native tool) as one tab-separated line on its output, which make bench
// collects into its closing table (Summary).
const HeadlineMark = "#bench-headline"

// Headline prints a section's headline to w: what is compared, mqbench's figure, the native
// tool's (with its name), the ratio ("1.07x"). Fields hold no tab or line break.
func Headline(w io.Writer, section, what, mqbench, native, ratio string) error {
	fs := []string{HeadlineMark, section, what, mqbench, native, ratio}
	for _, f := range fs {
		if strings.ContainsAny(f, "\t\n") {
			return fmt.Errorf("headline field with a tab or line break: %q", f)
		}
	}
	_, err := fmt.Fprintf(w, "%s\n", strings.Join(fs, "\t"))
	return err
}

// Headline prints the section's headline (the package's Headline) to its output.
func (e *Env) Headline(section, what, mqbench, native, ratio string) error {
	return Headline(e.Out, section, what, mqbench, native, ratio)
}

// Summary writes the Markdown table of every headline line in logs (sections in order).
func Summary(w io.Writer, logs ...string) error {
	fmt.Fprintln(w, "| section | headline | mqbench | native | ratio |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, log := range logs {
		b, err := os.ReadFile(log)
		if err != nil {
			continue // a section that failed before it wrote: named under the table
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Split(l, "\t"); len(f) == 6 && f[0] == HeadlineMark {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], f[4], f[5])
			}
		}
	}
	return nil
}

// BrokerStatus is scripts/brokers/status.sh's state of broker (running, unready or stopped)
// and the address it serves on.
func (e *Env) BrokerStatus(broker string) (state, addr string) {
	out, _ := exec.Command(filepath.Join(e.Repo, "scripts", "brokers", "status.sh"), broker).Output()
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) >= 4 && f[0] == broker {
			return f[1], f[3]
		}
	}
	return "stopped", ""
}

// BrokerUp starts broker unless it runs already, remembering whether this section started it.
func (e *Env) BrokerUp(broker string) error {
	state, _ := e.BrokerStatus(broker)
	cmd := exec.Command(filepath.Join(e.Repo, "scripts", "brokers", "start.sh"), broker)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("start %s: %v", broker, err)
	}
	if state != "running" && state != "unready" {
		e.mu.Lock()
		e.started[broker] = true
		e.mu.Unlock()
	}
	return nil
}

// Started is whether this section started broker (and has not stopped it).
func (e *Env) Started(broker string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.started[broker]
}

// Close stops every broker this section started and has not stopped (a section that failed
// half-way, or was interrupted).
func (e *Env) Close() error {
	e.mu.Lock()
	var up []string
	for b := range e.started {
		up = append(up, b)
	}
	e.mu.Unlock()
	var first error
	for _, b := range up {
		if err := e.BrokerDown(b); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// BrokerDown stops broker (and removes its data) if this section started it.
func (e *Env) BrokerDown(broker string) error {
	e.mu.Lock()
	mine := e.started[broker]
	delete(e.started, broker)
	e.mu.Unlock()
	if !mine {
		if state, _ := e.BrokerStatus(broker); state == "running" {
			fmt.Fprintf(os.Stderr, "%s was running before this section: left running\n", broker)
		}
		return nil
	}
	cmd := exec.Command(filepath.Join(e.Repo, "scripts", "brokers", "stop.sh"), broker)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// Ladder climbs rates with probes and prints each row with format; it returns each rule's best.
func (e *Env) Ladder(rates []int, perBatch int, probes []ladder.Probe, format string) ([]ladder.Best, error) {
	return ladder.Climb(rates, func(r int) int { return ladder.Batch(r, perBatch) }, probes, format, e.Out)
}
