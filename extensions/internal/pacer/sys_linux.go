package pacer

import (
	"syscall"
	"time"
)

// prSetTimerSlack is PR_SET_TIMERSLACK (linux/prctl.h).
const prSetTimerSlack = 29

// setTimerSlack asks the kernel to end this thread's sleeps within 1 ns of their time
// instead of the default 50 µs of slack it may add to group wake-ups.
func setTimerSlack() { _, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, 1, 0) }

// sleep blocks this thread in the kernel for d (a syscall: the scheduler may hand its P to
// other goroutines meanwhile), without the runtime's 1 ms timer rounding.
func sleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
