package mongodrv

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// TestMongoCloseMidStream: consumers closed mid-stream (drivertest.RunCloseMidStream), each
// Close cutting in at once (closeWait 0: whatever command is in flight is cancelled if it may
// be); the collection must end empty. Before claims were settled at Close, a claim insert cut
// off mid-flight was stored undelivered and the draining consumer deleted its message: lost.
func TestMongoCloseMidStream(t *testing.T) {
	url := mongoURL(t)
	for _, tc := range []struct {
		name  string
		batch int
	}{
		{name: "batch-1", batch: 1},
		{name: "batch-20", batch: 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Options{ClaimBatch: tc.batch, PollInterval: time.Millisecond}
			o.Defaults()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			d, err := Open(ctx, driver.Config{URL: url, Destination: unique("close"), Options: o})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := d.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			defer d.Teardown(context.Background())
			md := d.(*mongoDriver)
			coll := md.db(md.admin).Collection(md.cfg.Destination)
			r := drivertest.RunCloseMidStream(t, ctx, d, drivertest.CloseMidStream{
				N: 300, Rate: 300,
				Opened: func(c driver.Consumer) { c.(*consumer).closeWait = 0 },
				Left:   func(ctx context.Context) (int64, error) { return coll.CountDocuments(ctx, bson.D{}) },
				Settle: 200 * time.Millisecond, // late duplicates
			})
			t.Logf("300 messages, %d consumers closed mid-stream (%d deliveries before the drain): %d lost, %d duplicated, %d left in the collection; slowest Close %v",
				r.Closes, r.BeforeDrain, r.Lost, r.Duplicated, r.Left, r.SlowestClose.Round(time.Millisecond))
		})
	}
}
