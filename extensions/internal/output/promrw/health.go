package promrw

import (
	"errors"
	"sync"

	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/sirupsen/logrus"
)

// refusedLimit is how many refused pushes in a row make the output stop trying: a request
// Prometheus refuses (wrong URL, no remote write receiver, authentication) is refused again.
const refusedLimit = 3

// health counts pushes and says once when they start failing and once when they recover.
type health struct {
	mu       sync.Mutex
	r        results.Output
	failing  bool
	refusedN int
}

var (
	lastMu     sync.Mutex
	lastReport *results.Output // the last stopped output's report
)

// LastReport is how the output of this process fared (nil when none ran): summary.json notes it.
func LastReport() *results.Output {
	lastMu.Lock()
	defer lastMu.Unlock()
	if lastReport == nil {
		return nil
	}
	r := *lastReport
	return &r
}

func (h *health) gaveUp() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.r.GaveUp
}

func (h *health) record(log logrus.FieldLogger, points, bytes int, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.r.Pushes++
	if err == nil {
		h.r.Bytes += int64(bytes)
		if h.failing {
			log.Warnf("Prometheus answers again; %d pushes (%d series points) were dropped meanwhile, the totals are whole again", h.r.FailedPushes, h.r.DroppedPoints)
		}
		h.failing, h.refusedN = false, 0
		return
	}
	h.r.FailedPushes++
	h.r.DroppedPoints += points
	if h.r.Error == "" {
		h.r.Error = err.Error()
	}
	var pe *pushError
	refused := errors.As(err, &pe) && pe.refused
	if refused {
		h.refusedN++
		if h.refusedN >= refusedLimit {
			h.r.GaveUp = true
			log.Errorf("%s; refused %d times in a row: no more pushes this run (the run and its verdict go on)", err, h.refusedN)
			return
		}
	}
	switch {
	case h.failing:
	case refused:
		log.Warnf("%s; samples are being dropped (pushes stop after %d refusals in a row; the run and its verdict go on)", err, refusedLimit)
	default:
		log.Warnf("%s; samples are being dropped until it answers (the run and its verdict go on)", err)
	}
	h.failing = true
}

func (h *health) finish(url string) {
	h.mu.Lock()
	r := h.r
	h.mu.Unlock()
	r.Name, r.URL = Name, url
	lastMu.Lock()
	lastReport = &r
	lastMu.Unlock()
}
