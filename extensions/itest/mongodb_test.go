package itest

import (
	"context"
	"os"
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
	checkDelivery(t, "mongodb", true, `^FerretDB v1\.24\.0 \(MongoDB \d+\.\d+\.\d+ protocol\)$`)
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

// killMongo (TestBrokerKilledAndRestartedMidRun/mongodb): a private FerretDB (own state dir,
// port 27217; below the ephemeral range, which an outgoing connection may hold) on its own
// PostgreSQL (15542) is SIGKILLed 3 s into the measurement and started again 2 s later: the run goes on, the
// Go driver reconnects, nothing acknowledged is lost (every insert FerretDB acknowledged is
// committed in PostgreSQL), the ledger adds up and results are written.
func killMongo(t *testing.T) {
	// PostgreSQL runs as the postgres user, which cannot enter go test's private (0700) temp
	// dirs: a state dir it can reach, removed by TempDir's cleanup.
	state := postgresStateDir(t)
	env := append(os.Environ(), "MQBENCH_STATE="+state, "POSTGRES_PORT=15542", "FERRETDB_PORT=27217", "FERRETDB_DEBUG_PORT=28188")
	pg := &privateBroker{t: t, name: "postgres", env: env}
	fd := &privateBroker{t: t, name: "ferretdb", env: env}
	pg.script("start.sh")
	t.Cleanup(func() { pg.script("stop.sh") })
	fd.script("start.sh")
	t.Cleanup(func() { fd.script("stop.sh") }) // before PostgreSQL's (cleanups run last first)

	r := runWithOutage(t, "fault-mongodb", 4*time.Second, fd) // warm-up 1 s + 3 s
	if r.code != 0 || !r.summary.ThresholdsOK {
		t.Errorf("exit %d, thresholds_ok=%v: want 0 (no acknowledged message lost)\n%s", r.code, r.summary.ThresholdsOK, r)
	}
	tl := checkOutage(t, r)
	if lost := r.summary.Cells[0].Ledger.Lost; lost != 0 {
		t.Errorf("%d acknowledged messages lost", lost)
	}
	// Sends fail from the kill until FerretDB listens again: the last 3 s of the cell's 10
	// must be back at its rate.
	tl.resumedAtTheEnd(t, 3*time.Second, r.summary.Cells[0].Rate)
}

// TestMongoUnreachable: nothing listens at the url: exit 112, one line naming the broker and
// the address, never the password.
func TestMongoUnreachable(t *testing.T) { checkUnreachable(t, "unreachable-mongodb", "mongodb") }
