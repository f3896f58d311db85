package pacer

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// alarm is a timerfd read through the runtime's network poller: a goroutine waiting on it
// holds neither a thread nor a P, and the kernel's hrtimer behind it fires with no slack.
type alarm struct {
	f  *os.File
	fd int
}

func newAlarm() (*alarm, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &alarm{f: os.NewFile(uintptr(fd), "pacer-timerfd"), fd: fd}, nil
}

// waitUntil blocks the goroutine until t (Go's monotonic clock is CLOCK_MONOTONIC).
func (a *alarm) waitUntil(t time.Time) error {
	var now unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &now); err != nil {
		return err
	}
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	at := unix.NsecToTimespec(now.Nano() + int64(d))
	if err := unix.TimerfdSettime(a.fd, unix.TFD_TIMER_ABSTIME, &unix.ItimerSpec{Value: at}, nil); err != nil {
		return err
	}
	var buf [8]byte
	_, err := a.f.Read(buf[:])
	return err
}

func (a *alarm) close() { _ = a.f.Close() }
