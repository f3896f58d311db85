package runner

import "github.com/mqbench/xk6-mqbench/internal/ledger"

// Tally is the ledger's verdict for a cell (re-exported so the k6 layer needs one import).
type Tally = ledger.Tally
