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

// arm sets the alarm for t, replacing any earlier setting; a t already passed fires at once.
// Go's monotonic clock is CLOCK_MONOTONIC, so t is converted through the offset now.
func (a *alarm) arm(t time.Time) error {
	var now unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &now); err != nil {
		return err
	}
	at := now.Nano() + int64(max(time.Until(t), 1))
	return unix.TimerfdSettime(a.fd, unix.TFD_TIMER_ABSTIME, &unix.ItimerSpec{Value: unix.NsecToTimespec(at)}, nil)
}

// wait parks the goroutine in the poller until the alarm fires.
func (a *alarm) wait() error {
	var buf [8]byte // the expiration count, not needed
	_, err := a.f.Read(buf[:])
	return err
}

func (a *alarm) close() { _ = a.f.Close() }
