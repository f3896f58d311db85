package kafkadrv

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.BrokerStats = (*kafkaDriver)(nil)

// BrokerStats reports the run's consumer group's lag on the topic, through the admin API on
// the driver's own client: for every partition, its end offset (the high watermark: what
// consumers can read) minus the group's committed offset, summed. Setup commits the group's
// start position for every partition, so the lag counts from there; a partition without a
// commit (added later, or a user-named group that existed without one) counts from the log
// start with consumer.start earliest and as 0 with latest, where a consumer begins at the
// end. Consumers commit every 5 s with commit auto (after every batch with manual-sync), so
// the lag includes what they read since their last commit. Kafka exposes broker CPU and
// memory only over JMX, which mqbench does not read: Unknown.
func (d *kafkaDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	st := driver.UnknownStats()
	commits, err := d.adm.FetchOffsetsForTopics(ctx, d.group, d.topic)
	if err != nil {
		return st, fmt.Errorf("kafka: committed offsets of group %s: %s", d.group, d.scrub(err.Error()))
	}
	ends, err := d.adm.ListEndOffsets(ctx, d.topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return st, fmt.Errorf("kafka: end offsets of %s: %s", d.topic, d.scrub(err.Error()))
	}
	var starts kadm.ListedOffsets
	var lag int64
	var lerr error
	ends.Each(func(end kadm.ListedOffset) {
		from := int64(-1)
		if c, ok := commits.Lookup(end.Topic, end.Partition); ok && c.Err == nil {
			from = c.At
		}
		if from < 0 {
			if d.opts.Consumer.Start != "earliest" {
				return
			}
			if starts == nil && lerr == nil {
				starts, lerr = d.adm.ListStartOffsets(ctx, d.topic)
				if lerr == nil {
					lerr = starts.Error()
				}
			}
			s, ok := starts.Lookup(end.Topic, end.Partition)
			if !ok {
				return
			}
			from = s.Offset
		}
		if n := end.Offset - from; n > 0 {
			lag += n
		}
	})
	if lerr != nil {
		return st, fmt.Errorf("kafka: start offsets of %s: %s", d.topic, d.scrub(lerr.Error()))
	}
	st.Backlog = lag
	return st, nil
}
