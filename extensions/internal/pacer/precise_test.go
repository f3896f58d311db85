package pacer

import (
	"runtime"
	"testing"
)

// Linux gives the pacer its timerfd; elsewhere pacing precise runs as timer.
func TestPrecise(t *testing.T) {
	if got, want := Precise(), runtime.GOOS == "linux"; got != want {
		t.Errorf("Precise() = %v on %s, want %v", got, runtime.GOOS, want)
	}
}
