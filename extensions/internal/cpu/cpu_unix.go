//go:build unix

// Package cpu reads the process's own CPU time, so a run can report what the load generator
// itself spent per message (user + system, all threads).
package cpu

import (
	"syscall"
	"time"
)

// Used returns the CPU time this process has consumed so far.
func Used() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
