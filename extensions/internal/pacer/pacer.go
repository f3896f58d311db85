// Package pacer makes the Go runtime's timers fire on time while a paced load runs.
//
// Go rounds a timer wait under 1 ms up to 1 ms when it has nothing else to run (the idle
// scheduler blocks in epoll_wait, whose timeout is in milliseconds), so a send scheduled every
// period by a time.Timer (k6's arrival-rate executors, natsfloor's loop) starts 0–1.1 ms late.
// The pacer knows the schedules (start + k × period) and arms a kernel timer (timerfd) for the
// next due time, read through the runtime's network poller: the poller wakes the pacer's
// goroutine, which spins to the due time and parks, and the scheduler thread runs every
// expired timer before going idle again. The alarm is armed early by the wake-up's own latency
// as the pacer has measured it (wakeLead), so the timers run within microseconds of their due
// time instead of some 30 µs after. Between due times nothing runs and nothing is held (no
// locked thread, no P), and the pacer's goroutine exists only while a schedule is registered.
package pacer

import (
	"sync"
	"sync/atomic"
	"time"
)

// minGap bounds the wake-ups to 20,000 a second: at shorter periods the runtime is busy
// enough to run its timers itself, and a due time closer than minGap to the previous wake-up
// is served minGap after it.
const minGap = 50 * time.Microsecond

// Pacer wakes the runtime at the due times of its schedules. The zero value is ready.
type Pacer struct {
	mu     sync.Mutex
	scheds map[int]schedule
	nextID int
	on     bool   // a loop goroutine runs, waiting on alarm
	alarm  *alarm // the running loop's
	// dirty: the schedules changed since the loop computed its next due time (Add sets it
	// and fires the alarm, so a new schedule's first due time is not slept through).
	dirty atomic.Bool
}

type schedule struct {
	start time.Time
	next  func(time.Duration) time.Duration // the first due offset at or after one; -1: none
	until time.Time                         // no due time after it
}

// Default is the process-wide pacer: one goroutine serves every schedule of the process.
var Default = new(Pacer)

// Add registers a schedule, due times start + k × period (k ≥ 0) up to until, and starts the
// pacer's goroutine if none runs. remove unregisters it; the goroutine ends once no schedule
// is left (removed, or past its until).
func (p *Pacer) Add(start time.Time, period time.Duration, until time.Time) (remove func()) {
	if period <= 0 {
		return func() {}
	}
	return p.AddTicks(start, periodic(period), until)
}

// periodic is the schedule of due offsets k × period (RoundUp).
func periodic(period time.Duration) func(time.Duration) time.Duration {
	return func(d time.Duration) time.Duration { return RoundUp(d, period) }
}

// RoundUp is the first due offset k × period (k ≥ 0) at or after d.
func RoundUp(d, period time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return (d + period - 1) / period * period
}

// AddTicks is Add for any schedule: next(d) is its first due offset from start at or after d
// (-1 when none is left).
func (p *Pacer) AddTicks(start time.Time, next func(time.Duration) time.Duration, until time.Time) (remove func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.scheds == nil {
		p.scheds = map[int]schedule{}
	}
	id := p.nextID
	p.nextID++
	p.scheds[id] = schedule{start: start, next: next, until: until}
	if p.on {
		p.dirty.Store(true)
		_ = p.alarm.arm(time.Time{}) // now: the loop wakes and recomputes
	} else {
		a, err := newAlarm()
		if err != nil {
			return func() {} // no kernel timer here: Go's timers alone, as with pacing timer
		}
		p.on, p.alarm = true, a
		go p.loop(a)
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

// next is the earliest due time at or after from over the live schedules; false when none
// is left, and then the loop ends (p.on is cleared under p.mu, so a later Add starts one).
func (p *Pacer) next(from time.Time) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best time.Time
	for id, s := range p.scheds {
		if from.After(s.until) {
			delete(p.scheds, id)
			continue
		}
		at := s.next(from.Sub(s.start))
		if at < 0 {
			delete(p.scheds, id)
			continue
		}
		due := s.start.Add(at)
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

// loop sleeps until each due time. Waking is all it does: when its goroutine parks again,
// the scheduler looks for work, and expired timers (on any P) come first. The alarm goes off
// a learned lead before the due time and the goroutine spins the rest, so the timers run
// within microseconds of it instead of after the wake-up's own latency.
func (p *Pacer) loop(a *alarm) {
	defer a.close()
	var woke time.Time
	var lead wakeLead
	for {
		p.dirty.Store(false)
		due, ok := p.next(time.Now())
		if !ok {
			return
		}
		if earliest := woke.Add(minGap); due.Before(earliest) {
			due = earliest
		}
		early := lead.lead(due.Sub(woke))
		armAt := due.Add(-early)
		armed := time.Now()
		err := a.arm(armAt)
		if err == nil && p.dirty.Load() {
			continue // an Add between next and arm: its wake-up was overwritten
		}
		if err == nil {
			err = a.wait()
			woke = time.Now()
			if armAt.After(armed) { // armed for the future: its latency is the wake-up's
				lead.observe(woke.Sub(armAt))
			}
			// Spin only what the lead took early: an Add's wake-up (arm(now)) may come long
			// before the due time, and the loop then recomputes instead.
			for woke.Before(due) && due.Sub(woke) <= early {
				woke = time.Now()
			}
		}
		if err != nil {
			p.mu.Lock()
			p.on = false // a broken timerfd: Go's timers alone until the next Add
			p.mu.Unlock()
			return
		}
	}
}

// Schedules is how many schedules are registered and not yet past (for tests and checks).
func (p *Pacer) Schedules() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	now := time.Now()
	for _, s := range p.scheds {
		if !now.After(s.until) {
			n++
		}
	}
	return n
}
