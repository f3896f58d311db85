package amqp10drv_test

import (
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// TestBrokerStats: on RabbitMQ (address rabbitmq-v1) 500 accepted messages nobody consumes are
// the queue's depth, read through the management API like the rabbitmq driver's; memory and
// CPU come from the management and Prometheus endpoints that scripts/brokers/rabbitmq.sh
// enables.
func TestBrokerStats(t *testing.T) {
	u := drivertest.BrokerURL(t, "amqp10")
	o := &amqp10drv.Options{ManagementURL: management(t, u)}
	o.Defaults()
	drivertest.BrokerStats(t, "amqp10", driver.Config{URL: u, Destination: dest(t), Options: o}, 500,
		drivertest.StatsWant{Backlog: 500, CPU: true, Memory: true})
}

// TestArtemisBrokerStats: with address plain, Artemis's management address tells the queue's
// depth (10 accepted messages nobody consumes); CPU and memory are behind JMX: Unknown.
func TestArtemisBrokerStats(t *testing.T) {
	u := artemisURL(t)
	drivertest.BrokerStats(t, "amqp10", driver.Config{URL: u, Destination: dest(t), Options: plain(nil)}, 10,
		drivertest.StatsWant{Backlog: 10})
}
