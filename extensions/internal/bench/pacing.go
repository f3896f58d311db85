package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Pacing: NATS core, 1 KB: how late iterations start (schedule lag) and what precise pacing
// costs, for mqbench (bin/k6) beside natsfloor (plain nats.go, the same open-model loop) paced
// the same way, precise and timer, at 1,000 msg/s (batch 1) and 10,000 msg/s (batch 5, as the
// rate search keeps k6 at <= 2,000 iterations/s). Every configuration runs
// BENCH_PACING_REPEATS times (3) for BENCH_PACING_DURATION (10s), interleaved, and the
// medians are printed with [min-max]. Run by the nats section, and alone (it then starts
// nats-server itself, unless one runs).
func Pacing(e *Env) error {
	if !e.Started("nats") { // alone: the nats section calls it with its broker up
		if err := e.BrokerUp("nats"); err != nil {
			return err
		}
		defer func() { _ = e.BrokerDown("nats") }()
	}
	repeats, err := e.PositiveInt("BENCH_PACING_REPEATS", 3)
	if err != nil {
		return err
	}
	duration, err := e.Seconds("BENCH_PACING_DURATION", "10s")
	if err != nil {
		return err
	}
	floor, err := e.natsfloor()
	if err != nil {
		return err
	}
	type key struct {
		tool, pacing string
		rate         int
	}
	// per configuration: lag p50, lag p99, e2e from intended − e2e (p50s), CPU per message
	runs := map[key][][4]float64{}
	rates := []struct{ rate, batch int }{{1000, 1}, {10000, 5}}
	for range repeats {
		for _, rb := range rates {
			for _, pacing := range []string{"precise", "timer"} {
				step, err := Step(fmt.Sprintf("nats-pacing-%s-%d", pacing, rb.rate), natsCore, "1KB", duration)
				if err != nil {
					return err
				}
				step.Pacing = pacing
				ran, err := e.Run(step.Spec(rb.rate, rb.batch))
				if err != nil {
					return err
				}
				names := []string{"schedule_lag_p50_us", "schedule_lag_p99_us", "e2e_p50_us", "e2e_intended_p50_us", "cpu_per_message_us"}
				m, err := Figures(&ran.Summary, names...)
				if err != nil {
					return err
				}
				f, err := floor.fields(rb.rate, rb.batch, duration, pacing, names...)
				if err != nil {
					return err
				}
				runs[key{"mqbench", pacing, rb.rate}] = append(runs[key{"mqbench", pacing, rb.rate}], [4]float64{m[0], m[1], m[3] - m[2], m[4]})
				runs[key{"floor", pacing, rb.rate}] = append(runs[key{"floor", pacing, rb.rate}], [4]float64{f[0], f[1], f[3] - f[2], f[4]})
			}
		}
	}
	// stat: the median, least and most of metric m over the runs of k
	stat := func(k key, m int) (med, lo, hi float64) {
		var vs []float64
		for _, r := range runs[k] {
			vs = append(vs, r[m])
		}
		return Spread(vs)
	}
	cell := func(k key, m int) (string, float64) {
		med, lo, hi := stat(k, m)
		return fmt.Sprintf("%8.1fus [%.0f-%.0f]", med, lo, hi), med
	}
	e.Printf("\n== NATS core pacing, 1 KB: median of %d interleaved runs of %s (%d cores); [min-max] shows the noise\n", repeats, Secs(duration), Cores())
	e.Printf("%-60s %24s %24s %7s\n", "", "mqbench (k6)", "plain nats.go", "ratio")
	labels := map[int]string{1000: "1,000 msg/s", 10000: "10,000 msg/s (batch 5)"}
	metrics := []string{"schedule lag p50", "schedule lag p99", "e2e from intended p50 - e2e p50", "CPU per message"}
	for _, rb := range rates {
		for _, pacing := range []string{"precise", "timer"} {
			for m, name := range metrics {
				mq, mv := cell(key{"mqbench", pacing, rb.rate}, m)
				fl, fv := cell(key{"floor", pacing, rb.rate}, m)
				ratio := "-"
				if fv > 0 {
					ratio = Ratio(mv, fv) + "x"
				}
				e.Printf("%-60s %24s %24s %7s\n", name+", "+labels[rb.rate]+", "+pacing, mq, fl, ratio)
			}
		}
		for _, tool := range []struct{ key, name string }{{"mqbench", "mqbench"}, {"floor", "nats.go"}} {
			pr, _, _ := stat(key{tool.key, "precise", rb.rate}, 3)
			tm, _, _ := stat(key{tool.key, "timer", rb.rate}, 3)
			e.Printf("  %s at %s: precise pacing costs %+.1fus CPU per message (%.1f vs %.1f)\n", tool.name, labels[rb.rate], pr-tm, pr, tm)
		}
	}
	e.Printf("(k6 logs and summaries: %s)\n", e.Dir)
	return nil
}

// natsFloor is bin/natsfloor (plain nats.go, the same open-model loop as mqbench's) on the
// NATS sections' server, its own subject per process.
type natsFloor struct{ bin string }

// natsfloor builds bin/natsfloor from extensions/cmd/natsfloor.
func (e *Env) natsfloor() (natsFloor, error) {
	bin := filepath.Join(e.Repo, "bin", "natsfloor")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/natsfloor")
	cmd.Dir = filepath.Join(e.Repo, "extensions")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return natsFloor{}, fmt.Errorf("build natsfloor: %v", err)
	}
	return natsFloor{bin}, nil
}

// fields runs natsfloor at rate (batch messages a tick) for d and returns the named figures.
func (f natsFloor) fields(rate, batch int, d time.Duration, pacing string, names ...string) ([]float64, error) {
	out, err := exec.Command(f.bin, "-url", "nats://127.0.0.1:4222", "-subject", "mqbench.floor."+strconv.Itoa(os.Getpid()), "-warmup", "2s",
		"-rate", strconv.Itoa(rate), "-batch", strconv.Itoa(batch), "-duration", d.String(), "-pacing", pacing,
		"-fields", strings.Join(names, ",")).Output()
	if err != nil {
		return nil, fmt.Errorf("natsfloor at %d msg/s: %v", rate, err)
	}
	fs := strings.Fields(string(out))
	if len(fs) != len(names) {
		return nil, fmt.Errorf("natsfloor printed %q for %d fields", out, len(names))
	}
	vs := make([]float64, len(fs))
	for i, s := range fs {
		if vs[i], err = strconv.ParseFloat(s, 64); err != nil {
			return nil, fmt.Errorf("natsfloor's %s: %q is not a number", names[i], s)
		}
	}
	return vs, nil
}
