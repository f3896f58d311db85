package pgdrv

import (
	"context"
	"strconv"
	"testing"
)

// TestBacklogCountsSmallTablesOnly: a table whose key range spans at most exactCountRows is
// counted row by row (ids deleted from its middle are not backlog); a larger one is measured
// by its key range, without reading the table (the same gap stays in the figure).
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
		name       string
		rows, want int64 // rows in the table (ids 1..rows), less ids 11..20
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
			if st.Backlog != tc.want {
				t.Fatalf("backlog %d, want %d", st.Backlog, tc.want)
			}
		})
	}
}
