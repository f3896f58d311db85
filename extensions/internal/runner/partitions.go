package runner

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// partitionTimeout bounds a read of the partitions' end offsets.
const partitionTimeout = 5 * time.Second

// partitionCounts follows a partitioned destination's end offsets: read once connected and
// as each cell ends, each cell's counts are the difference (its warm-up and drain included:
// cells never overlap, so nothing of another cell's is in it).
type partitionCounts struct {
	mu   sync.Mutex
	pc   driver.PartitionCounter
	last map[int32]int64 // nil: no read succeeded yet
}

// startPartitions takes the first read, when the run has one destination that can tell.
func (r *Runner) startPartitions(ctx context.Context) {
	if len(r.drvs) != 1 {
		return
	}
	pc, ok := r.drvs[0].(driver.PartitionCounter)
	if !ok {
		return
	}
	r.parts.pc = pc
	r.parts.last, _ = r.readPartitions(ctx)
}

func (r *Runner) readPartitions(ctx context.Context) (map[int32]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, partitionTimeout)
	defer cancel()
	return r.parts.pc.PartitionEnds(ctx)
}

// cellPartitions is what each partition took during the cell just ended (nil when unknown).
func (r *Runner) cellPartitions() []results.PartitionCount {
	p := &r.parts
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pc == nil {
		return nil
	}
	now, err := r.readPartitions(context.Background())
	before := p.last
	if err != nil {
		p.last = nil
		return nil
	}
	p.last = now
	if before == nil {
		return nil
	}
	var out []results.PartitionCount
	var total int64
	for part, end := range now {
		n := end - before[part]
		total += n
		out = append(out, results.PartitionCount{Partition: part, Messages: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	for i := range out {
		if total > 0 {
			out[i].SharePct = 100 * float64(out[i].Messages) / float64(total)
		}
	}
	return out
}
