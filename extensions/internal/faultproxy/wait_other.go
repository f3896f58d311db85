//go:build !linux

package faultproxy

import "time"

// fineTimerSlack: only Linux lets a thread choose its timer slack.
func fineTimerSlack() {}

// nanosleep falls back to Go's timer elsewhere (up to a millisecond late).
func nanosleep(d time.Duration) { time.Sleep(d) }
