package itest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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
	checkDelivery(t, "postgres", true)
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

// TestPostgresFault: a private server (own state dir, port 15532) is SIGKILLed 3 s into the
// measurement and started again 2 s later (crash recovery): the run goes on, publishers
// reconnect, the consumers' cut batches come back (at-least-once), nothing acknowledged is
// lost, the ledger adds up and results are written.
func TestPostgresFault(t *testing.T) {
	k6Binary(t)
	// The server runs as the postgres user, which cannot enter go test's private (0700) temp
	// dirs: a state dir it can reach, removed by stop.sh's cleanup and TempDir's.
	state := filepath.Join(t.TempDir(), "state")
	for _, d := range []string{filepath.Dir(filepath.Dir(state)), filepath.Dir(state)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b := &privateBroker{t: t, name: "postgres", env: append(os.Environ(), "MQBENCH_STATE="+state, "POSTGRES_PORT=15532")}
	b.script("start.sh")
	t.Cleanup(func() { b.script("stop.sh") })

	done := make(chan run, 1)
	launched := time.Now()
	go func() { done <- runScenario(t, "extensions/itest/testdata/fault-postgres.yaml") }()
	time.Sleep(4500 * time.Millisecond)
	b.script("kill.sh")
	killed := time.Now()
	time.Sleep(2 * time.Second)
	b.script("start.sh")
	t.Logf("killed %v after k6 started; server back %v after the kill",
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
		t.Errorf("%d acknowledged messages lost: a committed INSERT survives a crash, a cut batch comes back", l.Lost)
	}
	if cell.PublishErrors == 0 && cell.E2ELatency.Max < 1e6 {
		t.Errorf("a 2 s outage left no trace: no publish error, e2e max %.0fus", cell.E2ELatency.Max)
	}
	// Sends fail from the kill until the restarted server accepts connections and the
	// clients' redial backoff (up to 2 s) comes round, 3-6 s of the cell's 15 on a busy
	// machine, so the totals say little: the last 4 s must be back at the cell's rate.
	tl.resumedAtTheEnd(t, 4*time.Second, cell.Rate)
}

// TestPostgresUnreachable: nothing listens at the url: exit 112, one line naming the broker
// and the address, never the password.
func TestPostgresUnreachable(t *testing.T) {
	r := runScenario(t, "extensions/itest/testdata/unreachable-postgres.yaml")
	if r.code != 112 {
		t.Fatalf("exit %d, want 112\n%s", r.code, r)
	}
	lines := nonEmptyLines(r.stderr)
	if len(lines) != 1 || !strings.Contains(lines[0], "postgres") || !strings.Contains(lines[0], "127.0.0.1:1") {
		t.Errorf("want one line naming postgres and 127.0.0.1:1, got:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr+r.stdout, "itest-secret") {
		t.Errorf("the password reached the output:\n%s", r)
	}
	noStackTrace(t, r)
}
