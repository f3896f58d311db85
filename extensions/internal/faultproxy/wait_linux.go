package faultproxy

import (
	"time"

	"golang.org/x/sys/unix"
)

// fineTimerSlack sets this thread's timer slack to 1 ns (the default 50 µs would be added
// to every sleep).
func fineTimerSlack() { _ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) }

// nanosleep blocks this thread in the kernel for d (Go's own timers round waits under a
// millisecond up to one).
func nanosleep(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	_ = unix.Nanosleep(&ts, nil)
}
