package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/bench"
	"github.com/mqbench/xk6-mqbench/internal/reproduce"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// reproduceStudies is make reproduce: the studies named (else $REPRODUCE, else all), each
// printing Markdown tables of what it measured and the ratios between configurations beside
// the study's; the tables also go to .cache/reproduce/report-<UTC time>.md. It stops at the
// first study that fails and returns the exit status.
func reproduceStudies(repo string, names []string) int {
	if len(names) == 0 {
		names = strings.Fields(os.Getenv("REPRODUCE"))
	}
	if len(names) == 0 {
		names = reproduce.Order
	}
	for _, n := range names {
		if reproduce.Sections[n] == nil {
			fmt.Fprintf(os.Stderr, "reproduce: no study %q (studies: %s)\n", n, strings.Join(reproduce.Order, " "))
			return 2
		}
	}
	scale := os.Getenv("REPRODUCE_SCALE")
	if scale == "" {
		scale = "1"
	}
	if _, err := reproduce.ParseScale(scale); err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		return 2
	}
	dir := filepath.Join(repo, ".cache", "reproduce")
	now := time.Now().UTC()
	report := filepath.Join(dir, "report-"+runenv.Stamp(now)+".md")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		return 1
	}
	f, err := os.Create(report)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		return 1
	}
	defer f.Close()
	out := io.MultiWriter(os.Stdout, f)
	fmt.Fprintf(out, "# make reproduce, %s: REPRODUCE_SCALE=%s, %d cores\n", now.Format("2006-01-02T15:04Z"), scale, bench.Cores())
	for _, n := range names {
		section := reproduce.Sections[n]
		err := run(repo, filepath.Join(dir, "study-"+n+".log"), out, func(b *bench.Env) error {
			e, err := reproduce.NewEnv(b)
			if err != nil {
				return err
			}
			return section(e)
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "reproduce: %s: %v\n", n, err)
			return 1
		}
	}
	fmt.Fprintf(os.Stderr, "tables in %s\n", report)
	return 0
}
