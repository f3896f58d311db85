package mongodrv

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.BrokerStats = (*mongoDriver)(nil)

// BrokerStats: Backlog is the collection's document count: messages inserted and not yet
// deleted by a consumer (a claimed batch counts until its delete). MongoDB counts through
// the _id index (countDocuments). FerretDB v1 would read every document for a count (a full
// scan sent from PostgreSQL to FerretDB once a second, which slows the run it measures and,
// with a long backlog, piles up), so there it is collStats' count: PostgreSQL's own row
// estimate after an ANALYZE, exact for small collections, an estimate beyond ~30,000 rows.
// CPU and memory stay Unknown: FerretDB's serverStatus has neither, and its work is
// PostgreSQL's.
func (d *mongoDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	s := driver.UnknownStats()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	db := d.db(d.admin)
	if d.ferret {
		raw, err := db.RunCommand(ctx, bson.D{{Key: "collStats", Value: d.cfg.Destination}}).Raw()
		if err != nil {
			return s, d.wrap("collStats", err)
		}
		n, ok := raw.Lookup("count").AsInt64OK()
		if !ok {
			return s, fmt.Errorf("mongodb (%s): collStats has no numeric count", d.server)
		}
		s.Backlog = n
		return s, nil
	}
	n, err := db.Collection(d.cfg.Destination).CountDocuments(ctx, bson.D{})
	if err != nil {
		return s, d.wrap("count", err)
	}
	s.Backlog = n
	return s, nil
}
