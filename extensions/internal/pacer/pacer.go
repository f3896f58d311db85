// Package pacer makes the Go runtime's timers fire on time while a paced load runs.
//
// Go rounds a timer wait under 1 ms up to 1 ms when no goroutine is runnable (the idle
// scheduler blocks in epoll_wait, whose timeout is in milliseconds), so a send scheduled
// every period by a time.Timer (k6's arrival-rate executors, natsfloor's loop) starts 0–1 ms
// late. The pacer knows the schedules (start + k × period) and, on a thread of its own,
// sleeps in the kernel until just before each due time, then yields: the yield wakes an idle
// scheduler thread, which runs the expired timers at once. It runs only while a schedule is
// registered, and wakes only when something is due, so it costs per send, not per microsecond.
package pacer

import (
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// Pacer wakes the runtime at the due times of its schedules. The zero value is ready.
type Pacer struct {
	mu     sync.Mutex
	scheds map[int]schedule
	nextID int
	wake   chan struct{} // the running loop's: closed/recreated to make it re-read scheds
	on     bool          // a loop runs
}

type schedule struct {
	start  time.Time
	period time.Duration
	until  time.Time // no more due times after it
}

// Default is the process-wide pacer: one thread serves every schedule of the process.
var Default = new(Pacer)

// Add registers a schedule: sends due at start + k × period, k ≥ 0, until `until`. It starts
// the pacer's thread if none runs; remove unregisters it (the thread ends with the last one).
func (p *Pacer) Add(start time.Time, period time.Duration, until time.Time) (remove func()) {
	if period <= 0 {
		return func() {}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.scheds == nil {
		p.scheds = map[int]schedule{}
	}
	id := p.nextID
	p.nextID++
	p.scheds[id] = schedule{start: start, period: period, until: until}
	if !p.on {
		p.on = true
		go p.loop()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			delete(p.scheds, id)
			p.mu.Unlock()
		})
	}
}

// next is the earliest due time after now of the live schedules, false when none remains
// (the loop then ends, under p.mu, so a later Add starts a new one).
func (p *Pacer) next(now time.Time) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best time.Time
	for id, s := range p.scheds {
		if !now.Before(s.until) {
			delete(p.scheds, id)
			continue
		}
		k := int64(0)
		if d := now.Sub(s.start); d > 0 {
			k = int64(d/s.period) + 1
		}
		due := s.start.Add(time.Duration(k) * s.period)
		if due.After(s.until) {
			due = s.until
		}
		if best.IsZero() || due.Before(best) {
			best = due
		}
	}
	if best.IsZero() {
		p.on = false
		return best, false
	}
	return best, true
}

// Experiment knobs (MQBENCH_PACER_LEAD_US: wake this early, then spin; MQBENCH_PACER_FIXED_US:
// a fixed-period pump instead of the schedule).
var (
	lead  = envUS("MQBENCH_PACER_LEAD_US", 0)
	fixed = envUS("MQBENCH_PACER_FIXED_US", 0)
	useFD = os.Getenv("MQBENCH_PACER_MODE") == "fd"
)

func envUS(k string, def time.Duration) time.Duration {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
		return time.Duration(v) * time.Microsecond
	}
	return def
}

func (p *Pacer) loop() {
	if useFD {
		p.loopFD()
		return
	}
	runtime.LockOSThread() // the timer slack below is the thread's
	defer runtime.UnlockOSThread()
	setTimerSlack()
	for {
		now := time.Now()
		due, ok := p.next(now)
		if !ok {
			return
		}
		if fixed > 0 {
			sleep(fixed)
			runtime.Gosched()
			continue
		}
		if d := due.Sub(now) - lead; d > 0 {
			sleep(d)
		}
		for time.Now().Before(due) {
			runtime.Gosched()
		}
		// The yield lets an idle scheduler thread start (wakep), which runs every expired
		// timer of every P before looking for other work.
		runtime.Gosched()
	}
}

func (p *Pacer) loopFD() {
	a, err := newAlarm()
	if err != nil {
		panic(err)
	}
	defer a.close()
	for {
		now := time.Now()
		due, ok := p.next(now)
		if !ok {
			return
		}
		_ = a.waitUntil(due.Add(-lead))
		for time.Now().Before(due) {
			runtime.Gosched()
		}
		runtime.Gosched()
	}
}
