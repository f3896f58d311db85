// Command bench runs the sections of make bench written in Go (internal/bench), one after
// another: bin/bench SECTION... (scripts/bench.sh calls it for each such section); bin/bench
// headline … and bin/bench summary LOG… write and collect the headline lines for the shell
// sections too.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/mqbench/xk6-mqbench/internal/bench"
	_ "github.com/mqbench/xk6-mqbench/internal/driver/all" // the scenarios it writes are validated
)

func main() {
	if len(os.Args) < 2 {
		names := make([]string, 0, len(bench.Sections))
		for n := range bench.Sections {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: bin/bench SECTION... (sections: %v)\n", names)
		os.Exit(2)
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	repo := filepath.Dir(filepath.Dir(exe)) // bin/bench in the repository
	switch os.Args[1] {
	case "headline": // bin/bench headline SECTION WHAT MQBENCH NATIVE RATIO (the shell sections')
		if len(os.Args) != 7 {
			fmt.Fprintln(os.Stderr, "usage: bin/bench headline SECTION WHAT MQBENCH NATIVE RATIO")
			os.Exit(2)
		}
		if err := bench.Headline(os.Stdout, os.Args[2], os.Args[3], os.Args[4], os.Args[5], os.Args[6]); err != nil {
			fmt.Fprintln(os.Stderr, "bench headline:", err)
			os.Exit(1)
		}
		return
	case "summary": // bin/bench summary LOG...: make bench's closing table
		_ = bench.Summary(os.Stdout, os.Args[2:]...)
		return
	}
	rc := 0
	for _, name := range os.Args[1:] {
		section, ok := bench.Sections[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "bench: no section %q written in Go\n", name)
			os.Exit(2)
		}
		if err := run(repo, name, section); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s: %v\n", name, err)
			rc = 1
		}
	}
	os.Exit(rc)
}

// run runs one section; the brokers it started are stopped when it ends, fails or is
// interrupted (exit 130 / 143, as the shell sections do).
func run(repo, name string, section bench.Section) error {
	e, err := bench.NewEnv(repo, os.Stdout)
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
