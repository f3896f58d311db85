package faultproxy

import (
	"runtime"
	"time"
)

// waiter holds a writer until a chunk's due time, the way its Mode says.
type waiter struct{ mode Mode }

// newWaiter prepares the calling goroutine: in Sleep mode it stays on its own OS thread
// (never unlocked, so the thread and its timer slack end with it) with the finest timer
// slack the kernel allows, so nanosleep wakes within tens of microseconds of the due time.
func newWaiter(mode Mode) waiter {
	if mode == Sleep {
		runtime.LockOSThread()
		fineTimerSlack()
	}
	return waiter{mode}
}

// until returns at t (or at once when t has passed).
func (w waiter) until(t time.Time) {
	for left := time.Until(t); left > 0; left = time.Until(t) {
		switch {
		case w.mode == Sleep:
			nanosleep(left)
		case left > 2*time.Millisecond:
			time.Sleep(left - time.Millisecond)
		default:
			runtime.Gosched()
		}
	}
}
