package nsqdrv

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// TestMPUBRefusedThenReconnects: a message nsqd refuses (over its --max-msg-size; nsqd answers
// E_BAD_MESSAGE and closes the connection) fails with nsqd's error; the publisher re-connects
// for the next batch, and exactly the accepted messages are in the run's channel.
func TestMPUBRefusedThenReconnects(t *testing.T) {
	url := nsqURL(t)
	t.Parallel()
	ctx := context.Background()
	o := &Options{PublishBatch: 10}
	o.Defaults()
	d, pub := drivertest.OpenPublisher(t, Open, driver.Config{URL: url, Destination: unique("refused"), Options: o, RunID: fmt.Sprintf("refused-%d", time.Now().UnixNano())})
	send := func(v []byte) error {
		a, err := pub.Send(ctx, driver.Message{Value: v})
		if err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return a.Wait(wctx)
	}
	if err := send([]byte("first")); err != nil {
		t.Fatalf("first message: %v", err)
	}
	err := send(make([]byte, 5<<20)) // over nsqd's 4 MiB --max-msg-size
	if err == nil || !strings.Contains(err.Error(), "E_BAD_MESSAGE") {
		t.Fatalf("a message over nsqd's size limit: %v, want nsqd's E_BAD_MESSAGE", err)
	}
	drivertest.SendNumbered(ctx, t, pub, 25, nil) // several batches on the new connection
	st, err := d.(*nsqDriver).BrokerStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Backlog != 26 {
		t.Fatalf("the run's channel holds %d messages, want the 26 accepted", st.Backlog)
	}
}
