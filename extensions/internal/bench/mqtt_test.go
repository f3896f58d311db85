package bench

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// The peer's message is a line mosquitto_pub -l sends as it is; mosquitto_sub -F '%U
// %20.20p' prints its arrival and its first 20 bytes, from which the section reads the kind
// and the due time back.
func TestPeerLineRoundTrip(t *testing.T) {
	due := time.Unix(1795980101, 191861680)
	line := peerLine(nil, true, due, 1024)
	if len(line) != 1025 || line[1024] != '\n' {
		t.Fatalf("line of %d bytes, last %q: want 1,024 bytes of payload and a newline", len(line), line[len(line)-1])
	}
	printed := fmt.Sprintf("1795980101.291861680 %s", line[:20])
	arrived, kind, d, ok := parsePeerLine(printed)
	if !ok || kind != 'M' || d != due.UnixNano() || arrived-d != int64(100*time.Millisecond) {
		t.Fatalf("parsePeerLine(%q) = %d %c %d %v", printed, arrived, kind, d, ok)
	}
	if _, kind, _, _ := parsePeerLine("1795980101.291861680 " + string(peerLine(nil, false, due, 64)[:20])); kind != 'W' {
		t.Fatalf("a warm-up line reads as %c", kind)
	}
	// The whole payload printed (a mosquitto_sub without the maximum width) reads alike.
	if _, _, d, ok := parsePeerLine("1795980101.291861680 " + string(line[:1024])); !ok || d != due.UnixNano() {
		t.Fatalf("a full payload did not parse: %v %d", ok, d)
	}
}

// Anything else mosquitto_sub could print is skipped, not miscounted.
func TestPeerLineRejectsOtherShapes(t *testing.T) {
	for _, l := range []string{
		"",
		"1795980101.291861680",
		"1795980101 M0000000000000000001",    // no fraction
		"1795980101.29 M0000000000000000001", // not nanoseconds
		"1795980101.291861680 M00000000000",  // short payload
		"1795980101.291861680 Mx000000000000000001",
		"x.291861680 M0000000000000000001",
	} {
		if _, _, _, ok := parsePeerLine(l); ok {
			t.Errorf("parsePeerLine(%q) accepted", l)
		}
	}
}

func TestMosquittoVersionOf(t *testing.T) {
	for help, want := range map[string]string{
		"mosquitto_pub is a simple mqtt client that will publish a message on a single topic and exit.\nmosquitto_pub version 2.0.11 running on libmosquitto 2.0.11.\n": "2.0.11",
		"mosquitto version 2.0.11\n\nmosquitto is an MQTT v5.0/v3.1.1/v3.1 broker.\n":                                                                                   "2.0.11",
		"bash: mosquitto: command not found\n": "",
	} {
		if got := mosquittoVersionOf([]byte(help)); got != want {
			t.Errorf("mosquittoVersionOf(%q) = %q, want %q", help, got, want)
		}
	}
}

// The ladder starts at the first rung at or above from, climbs, and ends at 1,000,000.
func TestMQTTRates(t *testing.T) {
	r := mqttRates(5000)
	if r[0] != 5000 || r[len(r)-1] < 1000000 || !slices.IsSorted(r) {
		t.Fatalf("mqttRates(5000) = %v", r)
	}
	if r := mqttRates(2000); r[0] != 2000 || r[1] != 5000 {
		t.Fatalf("mqttRates(2000) starts %v", r[:2])
	}
	for i := 1; i < len(r); i++ {
		if r[i] == r[i-1] {
			t.Fatalf("rung %d repeated in %v", r[i], r)
		}
	}
}

// A floor program's -fields output is one number per name; anything else is an error
// naming the tool.
func TestToolFields(t *testing.T) {
	v, err := toolFields("mqttfloor", []byte("1000 999.5 61.2\n"), []string{"sender_rate", "receiver_rate", "e2e_p50_us"})
	if err != nil || !slices.Equal(v, []float64{1000, 999.5, 61.2}) {
		t.Fatalf("toolFields = %v, %v", v, err)
	}
	if _, err := toolFields("mqttfloor", []byte("1000\n"), []string{"a", "b"}); err == nil {
		t.Fatal("one number for two fields accepted")
	}
	if _, err := toolFields("mqttfloor", []byte("1000 NaNx\n"), []string{"a", "b"}); err == nil {
		t.Fatal("a non-number accepted")
	}
}
