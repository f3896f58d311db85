package report

import (
	"github.com/mqbench/xk6-mqbench/internal/results/resultstest"
)

// The summaries the report's tests render (resultstest, shared with results' own tests).
var (
	sample = resultstest.Sample
	edge   = resultstest.Edge
	stats  = resultstest.Stats
	ptr    = resultstest.Ptr
)
