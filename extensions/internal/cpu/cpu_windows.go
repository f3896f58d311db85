package cpu

import (
	"syscall"
	"time"
)

// Used returns the CPU time this process has consumed so far (kernel + user, all threads).
func Used() time.Duration {
	self, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	var created, exited, kernel, user syscall.Filetime
	if err := syscall.GetProcessTimes(self, &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	// A Filetime here is a duration in 100 ns ticks, not a date: Nanoseconds would subtract
	// the 1601 epoch.
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
