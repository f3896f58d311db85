package runner

import "fmt"

// RunIDString is the run id as written in results and tags.
func (r *Runner) RunIDString() string { return fmt.Sprintf("%08x", r.runID) }
