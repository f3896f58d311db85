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
	return Probe(t, Target{Driver: broker, Env: "MQBENCH_" + strings.ToUpper(broker) + "_URL",
		DefaultURL: spec.DefaultURL, Start: broker, Options: spec.NewOptions()})
}

// Target is a broker one driver's tests run against, when a driver serves several brokers
// (amqp10: RabbitMQ and Artemis).
type Target struct {
	Driver     string // registered driver name
	Env        string // variable naming the url
	DefaultURL string // when Env is unset
	Start      string // scripts/brokers/start.sh argument that starts it
	Options    any    // options to open it with
}

// Probe returns the target's url after opening it once, skipping (or, with
// MQBENCH_REQUIRE_BROKERS=1, failing) the test when it does not answer.
func Probe(t testing.TB, tg Target) string {
	t.Helper()
	spec, err := driver.Lookup(tg.Driver)
	if err != nil {
		t.Fatal(err)
	}
	u := os.Getenv(tg.Env)
	if u == "" {
		u = tg.DefaultURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := spec.Open(ctx, driver.Config{URL: u, Destination: "mqbench.probe", Options: tg.Options})
	if err != nil {
		msg := fmt.Sprintf("%s at %s is not usable (%v); start one (scripts/brokers/start.sh %s) or set %s",
			tg.Start, redact.URL(u), err, tg.Start, tg.Env)
		if os.Getenv("MQBENCH_REQUIRE_BROKERS") == "1" {
			t.Fatal(msg + "; MQBENCH_REQUIRE_BROKERS=1 makes this a failure")
		}
		t.Skip(msg)
	}
	_ = d.Close()
	return u
}
