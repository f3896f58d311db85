package drivertest

import (
	"context"
	"fmt"
	"github.com/mqbench/xk6-mqbench/internal/redact"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// BrokerURL returns the broker a driver's tests run against: the value of MQBENCH_<BROKER>_URL,
// or the driver's default. It opens the driver once to check that the broker answers; when it
// does not, the test is skipped, unless MQBENCH_REQUIRE_BROKERS=1 (`make test`), which makes
// it a failure.
func BrokerURL(t testing.TB, broker string) string {
	t.Helper()
	spec, err := driver.Lookup(broker)
	if err != nil {
		t.Fatal(err)
	}
	env := "MQBENCH_" + strings.ToUpper(broker) + "_URL"
	u := os.Getenv(env)
	if u == "" {
		u = spec.DefaultURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := spec.Open(ctx, driver.Config{URL: u, Destination: "mqbench.probe", Options: spec.NewOptions()})
	if err != nil {
		msg := fmt.Sprintf("%s at %s is not usable (%v); start one (scripts/brokers/start.sh %s) or set %s",
			broker, redact.URL(u), err, broker, env)
		if os.Getenv("MQBENCH_REQUIRE_BROKERS") == "1" {
			t.Fatal(msg + "; MQBENCH_REQUIRE_BROKERS=1 makes this a failure")
		}
		t.Skip(msg)
	}
	_ = d.Close()
	return u
}
