package mongodrv

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.BrokerStats = (*mongoDriver)(nil)

// BrokerStats: Backlog is the collection's document count: messages inserted and not yet
// deleted by a consumer (a claimed batch counts until its delete). MongoDB counts through
// the _id index (countDocuments); FerretDB v1 reads every document for either form, so there
// the cheaper count command is used, which it answers exactly (on MongoDB it is an estimate
// from metadata). CPU and memory stay Unknown: FerretDB's serverStatus has neither, and its
// work is PostgreSQL's.
func (d *mongoDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	s := driver.UnknownStats()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	coll := d.db(d.admin).Collection(d.cfg.Destination)
	var n int64
	var err error
	if d.ferret {
		n, err = coll.EstimatedDocumentCount(ctx)
	} else {
		n, err = coll.CountDocuments(ctx, bson.D{})
	}
	if err != nil {
		return s, d.wrap("count", err)
	}
	s.Backlog = n
	return s, nil
}
