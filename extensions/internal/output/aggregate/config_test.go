package aggregate

import (
	"testing"
	"time"
)

func TestConfig(t *testing.T) {
	c, err := parseConfig(map[string]string{"K6_INFLUXDB_ADDR": "http://env:8086", "K6_INFLUXDB_DB": "envdb",
		"K6_INFLUXDB_PUSH_INTERVAL": "2s", "K6_INFLUXDB_TAGS_AS_FIELDS": "vu:int,iter"}, "")
	if err != nil || c.addr != "http://env:8086" || c.db != "envdb" || c.pushInterval != 2*time.Second ||
		!c.dropTags["vu"] || !c.dropTags["iter"] || c.dropTags["url"] {
		t.Fatalf("env config: %+v, %v", c, err)
	}
	c, err = parseConfig(map[string]string{"K6_INFLUXDB_DB": "envdb"}, "https://u:p@host:9999/mydb?pushInterval=500ms&grace=3s&retention=rp1")
	if err != nil || c.addr != "https://host:9999" || c.db != "mydb" || c.user != "u" || c.pass != "p" ||
		c.pushInterval != 500*time.Millisecond || c.grace != 3*time.Second || c.retention != "rp1" || c.window != time.Second {
		t.Fatalf("URL config (wins over env): %+v, %v", c, err)
	}
	for _, bad := range []string{"host:8086", "udp://host:8089/db", "http://h/db?nope=1", "http://h/db?window=0s"} {
		if _, err := parseConfig(nil, bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}
