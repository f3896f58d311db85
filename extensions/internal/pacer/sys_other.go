//go:build !linux

package pacer

import "time"

// Elsewhere the pacer falls back to the runtime's own timers: no gain, no harm.
func setTimerSlack() {}

func sleep(d time.Duration) { time.Sleep(d) }
