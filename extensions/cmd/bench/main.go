// Command bench is make bench: mqbench's figures beside plain client programs and the brokers'
// own tools, run in the same session (internal/bench). bin/bench [SECTION...] runs the
// sections named (else $BENCH, else the default set) one after another, each output kept in
// .cache/bench/section-<name>.log, then prints the table of every section's headline ratio
// and writes it to .cache/bench/summary.md; a section that failed is named under it and the
// command exits 1 after the others ran. bin/bench summary LOG... prints that table alone.
// bin/bench reproduce [STUDY...] is make reproduce (reproduce.go).
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/bench"
	_ "github.com/mqbench/xk6-mqbench/internal/driver/all" // the scenarios it writes are validated
)

// defaults are the sections make bench runs when none is named (distributed, pacing and mqtt
// only when named: pacing runs inside nats, mqtt's three ladders take about 18 minutes).
var defaults = []string{"nats", "soak", "kafka", "rabbitmq", "max", "artemis", "replication", "nsq", "postgres", "pulsar", "rocketmq", "stamp", "merge"}

func main() {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	repo := filepath.Dir(filepath.Dir(exe)) // bin/bench in the repository
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "summary" {
		_ = bench.Summary(os.Stdout, args[1:]...)
		return
	}
	if len(args) > 0 && args[0] == "reproduce" {
		os.Exit(reproduceStudies(repo, args[1:]))
	}
	if len(args) == 0 {
		args = strings.Fields(os.Getenv("BENCH"))
	}
	if len(args) == 0 {
		args = defaults
	}
	for _, name := range args {
		if _, ok := bench.Sections[name]; !ok {
			fmt.Fprintf(os.Stderr, "bench: no section %q (sections: %s)\n", name, strings.Join(names(), " "))
			os.Exit(2)
		}
	}
	dir := filepath.Join(repo, ".cache", "bench")
	var logs, failed []string
	for _, name := range args {
		log := filepath.Join(dir, "section-"+name+".log")
		logs = append(logs, log)
		if err := run(repo, log, os.Stdout, bench.Sections[name]); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s: %v\n", name, err)
			failed = append(failed, name)
		}
	}
	var table bytes.Buffer
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&table, "# make bench: headline ratios (%s, %d cores, load average %s)\n\n", time.Now().UTC().Format("2006-01-02T15:04Z"), bench.Cores(),
		strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	_ = bench.Summary(&table, logs...)
	if len(failed) > 0 {
		fmt.Fprintf(&table, "\nfailed sections: %s\n", strings.Join(failed, " "))
	}
	summary := filepath.Join(dir, "summary.md")
	_ = os.WriteFile(summary, table.Bytes(), 0o644)
	fmt.Printf("\n%s(written to %s)\n", table.String(), summary)
	if len(failed) > 0 {
		os.Exit(1)
	}
}

func names() []string {
	var ns []string
	for n := range bench.Sections {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// run runs one section, its output on out and in log; the brokers it started are stopped
// when it ends, fails or is interrupted (exit 130 / 143, as for those signals).
func run(repo, log string, out io.Writer, section bench.Section) error {
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		return err
	}
	f, err := os.Create(log)
	if err != nil {
		return err
	}
	defer f.Close()
	e, err := bench.NewEnv(repo, io.MultiWriter(out, f))
	if err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	go func() {
		s := <-sig
		_ = e.Close()
		os.Exit(map[bool]int{true: 130, false: 143}[s == os.Interrupt])
	}()
	err = section(e)
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	return err
}
