package natsdrv

import (
	"context"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// TestExistingStream: a stream that exists before the run is adapted (subject added), not
// claimed: Teardown removes only the run's consumer. A storage mismatch is a clear error.
func TestExistingStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := &Options{Mode: "jetstream", Stream: "EXISTING", Storage: "memory"}
	o.Defaults()
	d, err := Open(ctx, driver.Config{URL: "embedded", Destination: "mqbench.existing", Options: o, RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	nd := d.(*natsDriver)
	if _, err := nd.js.CreateStream(ctx, jetstream.StreamConfig{Name: "EXISTING", Subjects: []string{"other.>"}, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if nd.streamCreated {
		t.Error("Setup claims it created a stream that existed")
	}
	st, err := nd.js.Stream(ctx, "EXISTING")
	if err != nil {
		t.Fatal(err)
	}
	if subj := st.CachedInfo().Config.Subjects; len(subj) != 2 || subj[1] != "mqbench.existing" {
		t.Errorf("subjects after Setup: %v", subj)
	}
	if _, err := nd.js.Consumer(ctx, "EXISTING", "mqbench-r1"); err != nil {
		t.Errorf("run consumer missing after Setup: %v", err)
	}
	if err := d.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := nd.js.Stream(ctx, "EXISTING"); err != nil {
		t.Errorf("Teardown removed a stream it did not create: %v", err)
	}
	if _, err := nd.js.Consumer(ctx, "EXISTING", "mqbench-r1"); err == nil {
		t.Errorf("run consumer still there after Teardown")
	}

	// Same stream, other storage: refused with a message that says what to do.
	o2 := &Options{Mode: "jetstream", Stream: "EXISTING", Storage: "file"}
	o2.Defaults()
	d2, err := Open(ctx, driver.Config{URL: nd.url, Destination: "mqbench.existing", Options: o2, RunID: "r2"})
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if err := d2.Setup(ctx); err == nil || !strings.Contains(err.Error(), "storage") {
		t.Errorf("storage mismatch: got %v", err)
	}
}
