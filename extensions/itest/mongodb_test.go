package itest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The mongodb driver runs as its own phase of make test (scripts/test.sh phases): PostgreSQL
// and FerretDB v1.24.0 on it, started alone by scripts/brokers/start.sh postgres ferretdb,
// then these tests (-run '^TestMongo'). The server is FerretDB on PostgreSQL, not MongoDB.

const mongoURL = "mongodb://127.0.0.1:27117"

// TestMongoDelivery: two cells through a collection (two consumers sharing batch claims):
// every message sent arrives once, publish latency is its insert's acknowledgement (w:1), and
// the collection and its claims collection are dropped after the run.
func TestMongoDelivery(t *testing.T) {
	checkDelivery(t, "mongodb", true)
}

// mongoLeftovers lists the collections of database mqbench named like the itests'
// (mqbench-itest-*, their claims collections included).
func mongoLeftovers(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(mongoURL).SetServerSelectionTimeout(5 * time.Second))
	if err != nil {
		t.Fatalf("listing collections: %v", err)
	}
	defer c.Disconnect(context.Background())
	names, err := c.Database("mqbench").ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatalf("listing collections: %v", err)
	}
	var left []string
	for _, n := range names {
		if strings.HasPrefix(n, "mqbench-itest-") {
			left = append(left, n)
		}
	}
	return left
}

// TestMongoFault: a private FerretDB (own state dir, port 27217; below the ephemeral range, which an outgoing connection may hold) on its own PostgreSQL (15542)
// is SIGKILLed 3 s into the measurement and started again 2 s later: the run goes on, the
// Go driver reconnects, nothing acknowledged is lost (every insert FerretDB acknowledged is
// committed in PostgreSQL), the ledger adds up and results are written.
func TestMongoFault(t *testing.T) {
	k6Binary(t)
	// PostgreSQL runs as the postgres user, which cannot enter go test's private (0700) temp
	// dirs: a state dir it can reach, removed by TempDir's cleanup.
	state := filepath.Join(t.TempDir(), "state")
	for _, d := range []string{filepath.Dir(filepath.Dir(state)), filepath.Dir(state)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "MQBENCH_STATE="+state, "POSTGRES_PORT=15542", "FERRETDB_PORT=27217", "FERRETDB_DEBUG_PORT=28188")
	pg := &privateBroker{t: t, name: "postgres", env: env}
	fd := &privateBroker{t: t, name: "ferretdb", env: env}
	pg.script("start.sh")
	t.Cleanup(func() { pg.script("stop.sh") })
	fd.script("start.sh")
	t.Cleanup(func() { fd.script("stop.sh") }) // before PostgreSQL's (cleanups run last first)

	done := make(chan run, 1)
	launched := time.Now()
	go func() { done <- runScenario(t, "extensions/itest/testdata/fault-mongodb.yaml") }()
	time.Sleep(4500 * time.Millisecond)
	fd.script("kill.sh")
	killed := time.Now()
	time.Sleep(2 * time.Second)
	fd.script("start.sh")
	t.Logf("killed %v after k6 started; FerretDB back %v after the kill",
		killed.Sub(launched).Round(100*time.Millisecond), time.Since(killed).Round(100*time.Millisecond))
	r := <-done

	if r.summary == nil {
		t.Fatalf("no summary written (exit %d)\n%s", r.code, r)
	}
	if r.code != 0 || !r.summary.ThresholdsOK {
		t.Errorf("exit %d, thresholds_ok=%v: want 0 (no acknowledged message lost)\n%s", r.code, r.summary.ThresholdsOK, r)
	}
	cell := r.summary.Cells[0]
	l := cell.Ledger
	t.Logf("sent %d received %d publish errors %d lost %d duplicated %d e2e max %.0fus exit %d",
		cell.Sent, cell.Received, cell.PublishErrors, l.Lost, l.Duplicated, cell.E2ELatency.Max, r.code)
	tl := readTimeline(t, r)
	t.Logf("timeline: %s", tl.describe())
	if !cell.LedgerFinal {
		t.Errorf("ledger not final: the cell did not run to the end of its drain")
	}
	if l.Lost+l.Failed+cell.Received+cell.ReceivedWarmup < l.Issued || cell.Received+cell.ReceivedWarmup > l.Issued+l.Duplicated {
		t.Errorf("ledger does not add up: %+v, received %d+%d", l, cell.Received, cell.ReceivedWarmup)
	}
	if l.Lost != 0 {
		t.Errorf("%d acknowledged messages lost", l.Lost)
	}
	if cell.PublishErrors == 0 && cell.E2ELatency.Max < 1e6 {
		t.Errorf("a 2 s outage left no trace: no publish error, e2e max %.0fus", cell.E2ELatency.Max)
	}
	// Sends fail from the kill until FerretDB listens again: the last 3 s of the cell's 10
	// must be back at its rate.
	tl.resumedAtTheEnd(t, 3*time.Second, cell.Rate)
}

// TestMongoUnreachable: nothing listens at the url: exit 112, one line naming the broker and
// the address, never the password.
func TestMongoUnreachable(t *testing.T) {
	r := runScenario(t, "extensions/itest/testdata/unreachable-mongodb.yaml")
	if r.code != 112 {
		t.Fatalf("exit %d, want 112\n%s", r.code, r)
	}
	lines := nonEmptyLines(r.stderr)
	if len(lines) != 1 || !strings.Contains(lines[0], "mongodb") || !strings.Contains(lines[0], "127.0.0.1:1") {
		t.Errorf("want one line naming mongodb and 127.0.0.1:1, got:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr+r.stdout, "itest-secret") {
		t.Errorf("the password reached the output:\n%s", r)
	}
	noStackTrace(t, r)
}
