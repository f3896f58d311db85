package nsqdrv

import (
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

func init() {
	driver.Register("nsq", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "nsq://127.0.0.1:4250",
		CheckURL:         checkURL,
		CheckDestination: checkTopic,
		// nsqd keeps a channel's messages until a consumer finishes them (memory queue, then
		// disk); an #ephemeral channel or topic keeps them in memory only while someone reads.
		Holds: func(o driver.Options) bool { return !strings.HasSuffix(o.(*Options).Channel, ephemeral) },
		// nsqd keeps every acknowledged message for each channel until a consumer finishes it,
		// so a lost message is a failure.
		PromisesDelivery: func(driver.Options) bool { return true },
	})
}
