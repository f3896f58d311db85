package pgdrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

func init() {
	driver.Register("postgres", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "postgres://postgres@127.0.0.1:5532/mqbench",
		CheckURL:         checkURL,
		CheckDestination: checkTable,
		// The table keeps every row until a consumer deletes it (an UNLOGGED table too, as
		// long as the server does not crash).
		Holds:            func(driver.Options) bool { return true },
		PromisesDelivery: promisesDelivery,
	})
}
