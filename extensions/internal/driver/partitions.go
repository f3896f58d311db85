package driver

import "context"

// PartitionCounter is a driver whose destination is split in partitions and that can read how
// many messages each has taken so far (its end offset): the runner reads it as a cell starts
// and ends, so a run shows how its keys spread (a hot key overloads one partition).
type PartitionCounter interface {
	PartitionEnds(ctx context.Context) (map[int32]int64, error)
}
