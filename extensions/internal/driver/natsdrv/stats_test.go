package natsdrv

import (
	"context"
	"fmt"
	neturl "net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// TestBrokerStats: 500 messages in the stream that the run's consumer has not pulled are its
// num_pending; core NATS has no broker-side backlog. CPU and memory come from the embedded
// server's varz.
func TestBrokerStats(t *testing.T) {
	statsCases(t, "embedded", []statsCase{
		{"jetstream", &Options{Mode: "jetstream"}, drivertest.StatsWant{Backlog: statsN, CPU: true, Memory: true}},
		{"core", &Options{Mode: "core"}, drivertest.StatsWant{Backlog: driver.Unknown, CPU: true, Memory: true}},
	})
}

// TestBrokerStatsExternal: the same against an external server, whose CPU and memory come
// from its monitoring endpoint when monitor_url is given (scripts/brokers/nats.sh starts
// nats-server with -m 8222 on 127.0.0.1) and are Unknown otherwise; JetStream's backlog
// needs no monitoring endpoint.
func TestBrokerStatsExternal(t *testing.T) {
	u := drivertest.BrokerURL(t, "nats")
	mon := monitorURL(t, u)
	statsCases(t, u, []statsCase{
		{"jetstream-monitor", &Options{Mode: "jetstream", MonitorURL: mon}, drivertest.StatsWant{Backlog: statsN, CPU: true, Memory: true}},
		{"jetstream", &Options{Mode: "jetstream"}, drivertest.StatsWant{Backlog: statsN}},
		{"core-monitor", &Options{Mode: "core", MonitorURL: mon}, drivertest.StatsWant{Backlog: driver.Unknown, CPU: true, Memory: true}},
	})
}

const statsN = 500

type statsCase struct {
	name string
	opts *Options
	want drivertest.StatsWant
}

func statsCases(t *testing.T, url string, cases []statsCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.opts.Defaults()
			run := fmt.Sprintf("stats-%s-%d", c.name, time.Now().UnixNano())
			cfg := driver.Config{URL: url, Destination: "mqbench.test." + run, Options: c.opts, RunID: run}
			drivertest.BrokerStats(t, "nats", cfg, statsN, c.want)
		})
	}
}

// monitorURL is the external server's monitoring endpoint: MQBENCH_NATS_MONITOR_URL, else
// http://<url host>:8222.
func monitorURL(t *testing.T, brokerURL string) string {
	if v := os.Getenv("MQBENCH_NATS_MONITOR_URL"); v != "" {
		return v
	}
	u, err := neturl.Parse(strings.Split(brokerURL, ",")[0])
	if err != nil || u.Hostname() == "" {
		t.Fatalf("cannot derive a monitoring url from %s; set MQBENCH_NATS_MONITOR_URL", brokerURL)
	}
	return "http://" + u.Hostname() + ":8222"
}

// TestMonitorURLEmbedded: the embedded server is read directly; monitor_url beside it is a
// mistake, refused by Open.
func TestMonitorURLEmbedded(t *testing.T) {
	o := &Options{MonitorURL: "http://127.0.0.1:8222"}
	o.Defaults()
	d, err := Open(context.Background(), driver.Config{URL: "embedded", Destination: "x", Options: o})
	if err == nil {
		d.Close()
		t.Fatal("Open with url embedded and monitor_url succeeded, want an error")
	}
	if !strings.Contains(err.Error(), "monitor_url") {
		t.Errorf("error %q does not name monitor_url", err)
	}
}

func TestMonitorURLValidate(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8222":     "",
		"https://nats.example:443":  "",
		"127.0.0.1:8222":            "monitor_url",
		"http://u:p@127.0.0.1:8222": "monitor_url",
	} {
		o := &Options{MonitorURL: in}
		o.Defaults()
		var got []string
		for _, e := range o.Validate() {
			got = append(got, e.Field)
		}
		if strings.Join(got, ",") != want {
			t.Errorf("monitor_url %q: problems %v, want %q", in, got, want)
		}
		for _, e := range o.Validate() {
			if strings.Contains(e.Msg, "u:p@") {
				t.Errorf("message quotes credentials: %s", e.Msg)
			}
		}
	}
}
