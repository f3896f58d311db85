package pgdrv

import (
	"context"
	"strconv"
	"testing"
)

// TestBacklogCountsSmallTablesOnly: the per-second sample counts a table whose key range spans
// at most exactCountRows row by row (ids deleted from its middle are not backlog) and gives a
// larger one its key range, without reading the table (the same gap stays in the figure); the
// reconciliation's read, which may excuse a loss, counts every table exactly.
func TestBacklogCountsSmallTablesOnly(t *testing.T) {
	url := pgURL(t)
	t.Parallel()
	ctx := context.Background()
	d := open(t, url, unique("backlog"), &Options{})
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.Teardown(ctx) }()
	for _, tc := range []struct {
		name         string
		rows, sample int64 // rows in the table (ids 1..rows), less ids 11..20
	}{
		{"empty", 0, 0},
		{"small: counted", 1_000, 990},
		{"at the limit: counted", exactCountRows, exactCountRows - 10},
		{"large: key range", exactCountRows + 5_000, exactCountRows + 5_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := d.pool.Exec(ctx, "TRUNCATE "+d.table+" RESTART IDENTITY"); err != nil {
				t.Fatal(err)
			}
			if tc.rows > 0 {
				if _, err := d.pool.Exec(ctx, "INSERT INTO "+d.table+" (payload) SELECT '\\x00'::bytea FROM generate_series(1, "+strconv.FormatInt(tc.rows, 10)+")"); err != nil {
					t.Fatal(err)
				}
				if _, err := d.pool.Exec(ctx, "DELETE FROM "+d.table+" WHERE id BETWEEN 11 AND 20"); err != nil {
					t.Fatal(err)
				}
			}
			st, err := d.BrokerStats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Backlog != tc.sample {
				t.Errorf("sampled backlog %d, want %d", st.Backlog, tc.sample)
			}
			exact := max(tc.rows-10, 0)
			if n, err := d.ReadBacklog(ctx); err != nil || n != exact {
				t.Errorf("read backlog %d (%v), want %d", n, err, exact)
			}
		})
	}
}
