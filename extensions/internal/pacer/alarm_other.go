//go:build !linux

package pacer

import (
	"errors"
	"time"
)

// alarm needs Linux's timerfd: elsewhere the pacer does nothing (Go's timers alone).
type alarm struct{}

func newAlarm() (*alarm, error)    { return nil, errors.New("pacer: no timerfd on this system") }
func (*alarm) arm(time.Time) error { return nil }
func (*alarm) wait() error         { return nil }
func (*alarm) close()              {}
