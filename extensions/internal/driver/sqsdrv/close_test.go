package sqsdrv

import (
	"context"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// TestCloseMidStream: consumers closed mid-stream (drivertest.RunCloseMidStream). With the
// default 30 s visibility timeout, a message delivered and not deleted, or taken by a poll and
// neither delivered nor handed back, stays in flight far beyond the test: the queue (visible
// and in flight) must end empty within seconds.
func TestCloseMidStream(t *testing.T) {
	url := sqsURL(t)
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts *Options
		fifo bool
	}{
		{name: "standard", opts: &Options{}},
		{name: "fifo", opts: &Options{FIFO: true}, fifo: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Defaults()
			dest := unique("close")
			if tc.fifo {
				dest += ".fifo"
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			d, err := Open(ctx, driver.Config{URL: url, Destination: dest, Options: tc.opts, RunID: dest})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := d.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			defer d.Teardown(context.Background())
			var all []*consumer
			stats := d.(driver.BrokerStats)
			r := drivertest.RunCloseMidStream(t, ctx, d, drivertest.CloseMidStream{
				N: 300, Rate: 200,
				Opened: func(c driver.Consumer) { all = append(all, c.(*consumer)) },
				Left: func(ctx context.Context) (int64, error) {
					st, err := stats.BrokerStats(ctx)
					return st.Backlog, err
				},
			})
			var released int64
			for _, c := range all {
				released += c.released.Load()
			}
			t.Logf("300 messages, %d consumers closed mid-stream (%d deliveries before the drain, %d handed back after Close): %d lost, %d duplicated, %d left in the queue; slowest Close %v",
				r.Closes, r.BeforeDrain, released, r.Lost, r.Duplicated, r.Left, r.SlowestClose.Round(time.Millisecond))
		})
	}
}
