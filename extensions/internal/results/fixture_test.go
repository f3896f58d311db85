package results_test

import "github.com/mqbench/xk6-mqbench/internal/results/resultstest"

// sample is the finished two-cell run the report's tests render too.
var sample = resultstest.Sample
