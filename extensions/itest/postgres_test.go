package itest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgreSQL as a queue runs as its own phase of make test (scripts/test.sh phases): started
// alone by scripts/brokers/start.sh postgres, then these tests (-run '^TestPostgres').

const postgresURL = "postgres://postgres@127.0.0.1:5532/mqbench"

// TestPostgresDelivery: two cells through a queue table (two consumers sharing it with SKIP
// LOCKED): every message sent arrives once, publish latency is the INSERT's COMMIT, and the
// table is dropped after the run.
func TestPostgresDelivery(t *testing.T) {
	// One INSERT per message, then multi-row INSERTs (publish_batch).
	for _, f := range []string{"postgres", "postgres-multirow"} {
		t.Run(f, func(t *testing.T) { checkDelivery(t, f, true, `^PostgreSQL 15\.\d+`) })
	}
}

// postgresLeftovers lists the tables named like the itests' (mqbench-itest-*) and trigger
// functions mqbench_notify no table uses any more.
func postgresLeftovers(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, postgresURL)
	if err != nil {
		t.Fatalf("listing postgres tables: %v", err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, `SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE table_name LIKE 'mqbench-itest-%'
		UNION ALL SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.proname = 'mqbench_notify' AND NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgfoid = p.oid)`)
	if err != nil {
		t.Fatalf("listing postgres tables: %v", err)
	}
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("listing postgres tables: %v", err)
	}
	return left
}

// killPostgres (TestBrokerKilledAndRestartedMidRun/postgres): a private server (own state
// dir, port 15532) is SIGKILLed 3 s into the measurement and started again 2 s later (crash recovery): the run goes on, publishers
// reconnect, the consumers' cut batches come back (at-least-once), nothing acknowledged is
// lost, the ledger adds up and results are written.
func killPostgres(t *testing.T) {
	// The server runs as the postgres user, which cannot enter go test's private (0700) temp
	// dirs: a state dir it can reach, removed by stop.sh's cleanup and TempDir's.
	state := postgresStateDir(t)
	b := &privateBroker{t: t, name: "postgres", env: append(os.Environ(), "MQBENCH_STATE="+state, "POSTGRES_PORT=15532")}
	b.script("start.sh")
	t.Cleanup(func() { b.script("stop.sh") })

	r := runWithOutage(t, "fault-postgres", 4*time.Second, b) // warm-up 1 s + 3 s
	if r.code != 0 || !r.summary.ThresholdsOK {
		t.Errorf("exit %d, thresholds_ok=%v: want 0 (no acknowledged message lost)\n%s", r.code, r.summary.ThresholdsOK, r)
	}
	tl := checkOutage(t, r)
	if lost := r.summary.Cells[0].Ledger.Lost; lost != 0 {
		t.Errorf("%d acknowledged messages lost: a committed INSERT survives a crash, a cut batch comes back", lost)
	}
	// Sends fail from the kill until the restarted server accepts connections and the
	// clients' redial backoff (up to 2 s) comes round, 3-6 s of the cell's 15 on a busy
	// machine, so the totals say little: the last 4 s must be back at the cell's rate.
	tl.resumedAtTheEnd(t, 4*time.Second, r.summary.Cells[0].Rate)
}

// TestPostgresUnreachable: nothing listens at the url: exit 112, one line naming the broker
// and the address, never the password.
func TestPostgresUnreachable(t *testing.T) { checkUnreachable(t, "unreachable-postgres", "postgres") }
