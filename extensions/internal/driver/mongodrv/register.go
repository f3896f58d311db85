package mongodrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

func init() {
	driver.Register("mongodb", driver.Spec{
		NewOptions: func() driver.Options { return &Options{} },
		Open:       Open,
		// The project's server (scripts/brokers/start.sh ferretdb): FerretDB, not MongoDB's 27017.
		DefaultURL:       "mongodb://127.0.0.1:27117",
		CheckURL:         checkURL,
		CheckDestination: checkCollection,
		// A collection: messages stay until a consumer deletes them.
		Holds: func(driver.Options) bool { return true },
		// Every acknowledged insert stays in the collection until a consumer takes it, so a
		// lost message is a failure; except with claim find-one-and-delete, which deletes a
		// message before its consumer has it (a reply lost on the way loses the message by
		// design).
		PromisesDelivery: func(o driver.Options) bool { return o.(*Options).Claim != ClaimOne },
	})
}
