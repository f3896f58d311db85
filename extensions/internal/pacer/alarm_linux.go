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
	// t0 and mono0 are one instant on Go's clock and on CLOCK_MONOTONIC, the clock Go's
	// monotonic readings come from: mono0 + t.Sub(t0) is t on the timerfd's clock, with no
	// clock_gettime call per wake-up.
	t0    time.Time
	mono0 int64
}

func newAlarm() (*alarm, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	var mono unix.Timespec
	t0 := time.Now()
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	return &alarm{f: os.NewFile(uintptr(fd), "pacer-timerfd"), fd: fd, t0: t0, mono0: mono.Nano()}, nil
}

// arm sets the alarm for t, replacing any earlier setting; a t already passed fires at once.
func (a *alarm) arm(t time.Time) error {
	at := a.mono0 + int64(max(t.Sub(a.t0), time.Since(a.t0)+1))
	return unix.TimerfdSettime(a.fd, unix.TFD_TIMER_ABSTIME, &unix.ItimerSpec{Value: unix.NsecToTimespec(at)}, nil)
}

// wait parks the goroutine in the poller until the alarm fires.
func (a *alarm) wait() error {
	var buf [8]byte // the expiration count, not needed
	_, err := a.f.Read(buf[:])
	return err
}

func (a *alarm) close() { _ = a.f.Close() }
