package amqp10drv_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// management returns the management API beside the test broker: MQBENCH_AMQP10_MGMT_URL,
// else http://<url host>:15672.
func management(t *testing.T, brokerURL string) string {
	if v := os.Getenv("MQBENCH_AMQP10_MGMT_URL"); v != "" {
		return v
	}
	u, err := url.Parse(brokerURL)
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + u.Hostname() + ":15672"
}

func dest(t *testing.T) string {
	// Subtests' names carry "/", which RabbitMQ's /queue/<name> cannot.
	return fmt.Sprintf("mqbench.amqp10.%s.%d", strings.ReplaceAll(t.Name(), "/", "."), time.Now().UnixNano()%1e9)
}

func TestConformanceUnsettled(t *testing.T) {
	u := drivertest.BrokerURL(t, "amqp10")
	drivertest.Run(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: &amqp10drv.Options{ManagementURL: management(t, u)}})
}

func TestConformanceSettled(t *testing.T) {
	u := drivertest.BrokerURL(t, "amqp10")
	drivertest.Run(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: &amqp10drv.Options{Settle: "settled", ManagementURL: management(t, u)}})
}

func TestConformanceShared(t *testing.T) {
	u := drivertest.BrokerURL(t, "amqp10")
	drivertest.RunShared(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: &amqp10drv.Options{Credit: 16, ManagementURL: management(t, u)}})
}

// Quorum queue: declared through the management API (RabbitMQ 3.x's AMQP 1.0 declares only
// classic queues), used through /amq/queue/<name>, deleted by Teardown.
func TestConformanceQuorum(t *testing.T) {
	u := drivertest.BrokerURL(t, "amqp10")
	q := dest(t)
	o := &amqp10drv.Options{QueueType: "quorum", ManagementURL: management(t, u)}
	o.Defaults()
	spec, _ := driver.Lookup("amqp10")
	ctx := context.Background()
	d, err := spec.Open(ctx, driver.Config{URL: u, Destination: q, Options: o})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Setup(ctx); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	typ := queueType(t, management(t, u), q)
	if typ != "quorum" {
		t.Errorf("queue %s is %q after Setup, want quorum", q, typ)
	}
	// One node: the quorum queue's leader is it, and it has no followers.
	leader, followers, err := d.(driver.Topology).Placement(ctx)
	t.Logf("placement: leader %q, followers %v", leader, followers)
	if err != nil || !strings.Contains(leader, "@") || len(followers) != 0 {
		t.Errorf("Placement: leader %q followers %v err %v; want the one node, no followers", leader, followers, err)
	}
	if err := d.Teardown(ctx); err != nil {
		t.Fatalf("Teardown: %v", err)
	}
	if typ := queueType(t, management(t, u), q); typ != "" {
		t.Errorf("queue %s still there (%s) after Teardown", q, typ)
	}
	// The suite declares its own (and checks that Teardown removed it).
	drivertest.Run(t, "amqp10", driver.Config{URL: u, Destination: dest(t) + ".suite", Options: o})
}

// Accept auto: the broker sends pre-settled deliveries; without faults every message still
// arrives exactly once.
func TestConformanceAutoAccept(t *testing.T) {
	u := drivertest.BrokerURL(t, "amqp10")
	drivertest.Run(t, "amqp10", driver.Config{URL: u, Destination: dest(t),
		Options: &amqp10drv.Options{Accept: "auto", ManagementURL: management(t, u)}})
}

// queueType asks RabbitMQ's management API for the queue's type; "" when it does not exist.
func queueType(t *testing.T, mgmt, queue string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, mgmt+"/api/queues/%2F/"+url.PathEscape(queue), nil)
	req.SetBasicAuth("guest", "guest")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return ""
	}
	var q struct{ Type string }
	if err := json.NewDecoder(resp.Body).Decode(&q); err != nil {
		t.Fatal(err)
	}
	return q.Type
}

func TestWrongPassword(t *testing.T) {
	wrongPassword(t, drivertest.BrokerURL(t, "amqp10"), "guest", &amqp10drv.Options{})
}

// wrongPassword opens u with user and a wrong password: the broker's refusal must be
// reported as refused (not unreachable), name the user, and never quote the password.
func wrongPassword(t *testing.T, u, user string, opts *amqp10drv.Options) {
	t.Helper()
	pu, _ := url.Parse(u)
	const secret = "not-the-password-7f3a"
	pu.User = url.UserPassword(user, secret)
	spec, _ := driver.Lookup("amqp10")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := spec.Open(ctx, driver.Config{URL: pu.String(), Destination: "mqbench.amqp10.auth", Options: opts})
	if err == nil {
		d.Close()
		t.Fatal("Open with a wrong password succeeded")
	}
	t.Logf("error: %v", err)
	var ue *driver.UnreachableError
	if errors.As(err, &ue) {
		t.Errorf("wrong password reported as unreachable: %v", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error leaks the password: %v", err)
	}
	if !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), fmt.Sprintf("%q", user)) {
		t.Errorf("error %q does not say the credentials of %s were refused", err, user)
	}
}

func TestPasswordEnv(t *testing.T) {
	u := drivertest.BrokerURL(t, "amqp10")
	pu, _ := url.Parse(u)
	pw, _ := pu.User.Password()
	pu.User = nil
	t.Setenv("MQBENCH_T_AMQP10_USER", "guest")
	t.Setenv("MQBENCH_T_AMQP10_PASS", pw)
	spec, _ := driver.Lookup("amqp10")
	d, err := spec.Open(context.Background(), driver.Config{URL: pu.String(), Destination: "mqbench.amqp10.env",
		Options: &amqp10drv.Options{UsernameEnv: "MQBENCH_T_AMQP10_USER", PasswordEnv: "MQBENCH_T_AMQP10_PASS"}})
	if err != nil {
		t.Fatalf("Open with username_env/password_env: %v", err)
	}
	d.Close()
	_, err = spec.Open(context.Background(), driver.Config{URL: pu.String(), Destination: "mqbench.amqp10.env",
		Options: &amqp10drv.Options{PasswordEnv: "MQBENCH_T_AMQP10_UNSET"}})
	if err == nil || !strings.Contains(err.Error(), "MQBENCH_T_AMQP10_UNSET") {
		t.Errorf("unset password_env: %v", err)
	}
}

func TestAddressRejected(t *testing.T) {
	u := drivertest.BrokerURL(t, "amqp10")
	spec, _ := driver.Lookup("amqp10")
	// RabbitMQ 3.10 knows no /queues/<name> (4.x's address format): refused at Setup, named.
	d, err := spec.Open(context.Background(), driver.Config{URL: u, Destination: "mqbench-absent",
		Options: &amqp10drv.Options{Address: "rabbitmq-v2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	err = d.Setup(context.Background())
	t.Logf("Setup: %v", err)
	if err == nil || !strings.Contains(err.Error(), "/queues/mqbench-absent") {
		t.Errorf("Setup with an unknown address: %v, want an error naming the address", err)
	}
}

func TestManagementURLForm(t *testing.T) {
	spec, _ := driver.Lookup("amqp10")
	_, err := spec.Open(context.Background(), driver.Config{URL: "amqp://127.0.0.1:1", Destination: "q",
		Options: &amqp10drv.Options{ManagementURL: "amqp://x"}})
	if err == nil || !strings.Contains(err.Error(), "management_url") {
		t.Errorf("Open with management_url amqp://x: %v, want a management_url error", err)
	}
}

func TestUnreachable(t *testing.T) {
	drivertest.Unreachable(t, "amqp10", "amqp://guest:hush-secret@127.0.0.1:1", nil)
}

func TestOptions(t *testing.T) {
	no := false
	spec, _ := driver.Lookup("amqp10")
	cases := []struct {
		name    string
		o       amqp10drv.Options
		errs    string // fields with problems, comma-separated
		ack     driver.AckMode
		durable bool
	}{
		{"defaults", amqp10drv.Options{}, "", "amqp-disposition", true},
		{"settled", amqp10drv.Options{Settle: "settled"}, "", "none", false},
		{"transient", amqp10drv.Options{Durable: &no}, "", "amqp-disposition", false},
		{"v2 plain", amqp10drv.Options{Address: "rabbitmq-v2"}, "", "amqp-disposition", true},
		{"bad address", amqp10drv.Options{Address: "queue"}, "address", "amqp-disposition", true},
		{"bad settle", amqp10drv.Options{Settle: "first"}, "settle", "amqp-disposition", true},
		{"credit", amqp10drv.Options{Credit: 70000}, "credit", "amqp-disposition", true},
		{"negative credit", amqp10drv.Options{Credit: -1}, "credit", "amqp-disposition", true},
		{"management creds", amqp10drv.Options{ManagementURL: "http://u:p@h:15672"}, "management_url", "amqp-disposition", true},
		{"several", amqp10drv.Options{Settle: "x", Address: "y"}, "address,settle", "amqp-disposition", true},
		{"prometheus", amqp10drv.Options{PrometheusURL: "http://127.0.0.1:15692"}, "", "amqp-disposition", true},
		{"prometheus form", amqp10drv.Options{PrometheusURL: "127.0.0.1:15692"}, "prometheus_url", "amqp-disposition", true},
		{"prometheus plain", amqp10drv.Options{PrometheusURL: "http://h:15692", Address: "plain"}, "prometheus_url", "amqp-disposition", true},
		{"quorum", amqp10drv.Options{QueueType: "quorum"}, "", "amqp-disposition", true},
		{"quorum plain", amqp10drv.Options{QueueType: "quorum", Address: "plain"}, "queue_type", "amqp-disposition", true},
		{"bad queue type", amqp10drv.Options{QueueType: "stream"}, "queue_type", "amqp-disposition", true},
		{"multicast", amqp10drv.Options{Routing: "multicast", Address: "plain"}, "", "amqp-disposition", true},
		{"multicast rabbitmq", amqp10drv.Options{Routing: "multicast"}, "routing", "amqp-disposition", true},
		{"bad routing", amqp10drv.Options{Routing: "fanout", Address: "plain"}, "routing", "amqp-disposition", true},
		// Pre-settled deliveries: a message lost on the way to the consumer is gone by design.
		{"auto accept", amqp10drv.Options{Accept: "auto"}, "", "amqp-disposition", false},
		{"bad accept", amqp10drv.Options{Accept: "first"}, "accept", "amqp-disposition", true},
		{"send queue", amqp10drv.Options{SendQueue: 4096}, "", "amqp-disposition", true},
		{"send queue too long", amqp10drv.Options{SendQueue: 70000}, "send_queue", "amqp-disposition", true},
		{"send queue settled", amqp10drv.Options{SendQueue: 10, Settle: "settled"}, "send_queue", "none", false},
	}
	for _, c := range cases {
		o := c.o
		o.Defaults()
		var fields []string
		for _, e := range o.Validate() {
			fields = append(fields, e.Field)
		}
		if got := strings.Join(fields, ","); got != c.errs {
			t.Errorf("%s: problems in %q, want %q (%v)", c.name, got, c.errs, o.Validate())
		}
		if c.errs != "" {
			continue
		}
		if got := o.AckMode(); got != c.ack {
			t.Errorf("%s: AckMode %q, want %q", c.name, got, c.ack)
		}
		if got := spec.PromisesDelivery(&o); got != c.durable {
			t.Errorf("%s: PromisesDelivery %v, want %v", c.name, got, c.durable)
		}
	}
	var o amqp10drv.Options
	o.Defaults()
	if o.Address != "rabbitmq-v1" || o.Settle != "unsettled" || !*o.Durable || o.Credit != 256 ||
		o.Accept != "manual" || o.Routing != "anycast" || o.QueueType != "classic" {
		t.Errorf("defaults: %+v", o)
	}
}

func TestCheckURL(t *testing.T) {
	spec, err := driver.Lookup("amqp10")
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{"amqp://127.0.0.1:5672", "amqps://u:p@rabbit.example:5671", "amqp://h", spec.DefaultURL} {
		if err := spec.CheckURL(ok); err != nil {
			t.Errorf("CheckURL(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"http://h:1", "amqp://:5672", "amqp://h:0", "amqp://h:99999", "amqp://a:1,amqp://b:2", "h:5672", "amqp://u:sekrit@h:x"} {
		err := spec.CheckURL(bad)
		if err == nil {
			t.Errorf("CheckURL(%q) accepted it", bad)
			continue
		}
		if strings.Contains(err.Error(), "sekrit") {
			t.Errorf("CheckURL(%q) leaks the password: %v", bad, err)
		}
	}
}

func TestCheckDestination(t *testing.T) {
	spec, _ := driver.Lookup("amqp10")
	v1 := &amqp10drv.Options{}
	v1.Defaults()
	plain := &amqp10drv.Options{Address: "plain"}
	plain.Defaults()
	cases := []struct {
		name string
		opts driver.Options
		ok   bool
	}{
		{"orders", v1, true},
		{strings.Repeat("q", 255), v1, true},
		{strings.Repeat("q", 256), v1, false},
		{"amq.gen", v1, false},
		{"a/b", v1, false},
		{"", v1, false},
		{"amq.gen", plain, true},
		{"/amq/queue/x", plain, true},
		{strings.Repeat("q", 256), plain, false},
	}
	for _, c := range cases {
		err := spec.CheckDestination(c.name, c.opts)
		if (err == nil) != c.ok {
			t.Errorf("CheckDestination(%.20q, %s): %v, want ok=%v", c.name, c.opts.(*amqp10drv.Options).Address, err, c.ok)
		}
	}
}
