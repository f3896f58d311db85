package kafkadrv

import (
	"context"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.PartitionCounter = (*kafkaDriver)(nil)

// PartitionEnds is each partition's end offset: how many records it took since the topic
// was made.
func (d *kafkaDriver) PartitionEnds(ctx context.Context) (map[int32]int64, error) {
	ends, err := d.adm.ListEndOffsets(ctx, d.topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, d.classify(err)
	}
	out := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
	return out, nil
}
