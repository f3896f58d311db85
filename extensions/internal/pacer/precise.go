package pacer

import "sync"

// Precise reports whether this system can pace precisely: whether it gives the pacer its
// kernel timer. Without one (not Linux, or timerfd refused) Add does nothing and pacing
// precise runs as pacing timer, which is what a run's summary.json should say. Asked once.
var Precise = sync.OnceValue(func() bool {
	a, err := newAlarm()
	if err != nil {
		return false
	}
	a.close()
	return true
})
