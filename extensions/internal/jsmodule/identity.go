package jsmodule

import (
	"fmt"
	"math"

	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"go.k6.io/k6/v2/lib"
)

// identity is which runner this process is: from k6's execution segment, checked against
// MQ_RUNNERS (the operator splits 0..1 into N equal segments). It reads k6's state here, in
// the adapter, so that plan and the runner that reads it stay free of k6.
func identity(es *lib.ExecutionState, n int) (runner int, segment, sequence string, err error) {
	if es == nil || es.ExecutionTuple == nil {
		return 0, "", "", fmt.Errorf("%s=%d, but k6 runs no execution segment (run with --execution-segment and --execution-segment-sequence)", runenv.Runners, n)
	}
	et := es.ExecutionTuple
	seq := et.Sequence.ExecutionSegmentSequence
	segment, sequence = et.Segment.String(), seq.String()
	if len(seq) != n {
		return 0, segment, sequence, fmt.Errorf("%s=%d, but k6's segment sequence %s has %d segments", runenv.Runners, n, sequence, len(seq))
	}
	for _, s := range seq {
		if math.Abs(s.FloatLength()-1/float64(n)) > 1e-9 {
			return 0, segment, sequence, fmt.Errorf("segment sequence %s: segments must be equal (1/%d each) for every runner to take rate/%d", sequence, n, n)
		}
	}
	return et.SegmentIndex + 1, segment, sequence, nil
}
