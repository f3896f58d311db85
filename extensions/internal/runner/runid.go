package runner

import (
	"fmt"
	"math/rand/v2"
)

// NewRunID is a random run id, made before the runner so the plan's tags and the runner's
// headers share it (WithRunID).
func NewRunID() uint32 { return rand.Uint32() }

// FormatRunID is a run id as written in results, tags and driver configs.
func FormatRunID(id uint32) string { return fmt.Sprintf("%08x", id) }

// WithRunID sets the run id headers carry (default: a random one). A shared destination's
// runners take the run's one id instead (WithShared).
func WithRunID(id uint32) Option { return func(r *Runner) { r.runID = id } }

// RunIDString is the run id as written in results and tags.
func (r *Runner) RunIDString() string { return FormatRunID(r.runID) }
