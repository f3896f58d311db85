package sqsdrv

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// A FIFO deduplication id names what the runner issued, never what the payload's bytes say:
// two messages of one run differ by cell, producer or sequence, and a message with no name
// is named by its body.
func TestDedupID(t *testing.T) {
	p := &publisher{d: &sqsDriver{runTag: "r1"}}
	body := []byte("hello")
	sum := sha256.Sum256(body)
	for _, c := range []struct {
		name string
		m    driver.Message
		want string
	}{
		{"issued", driver.Message{Value: body, ID: driver.MessageID{Cell: 2, Producer: 3, Seq: 40, Issued: true}}, "r1-2-3-40"},
		{"first of a cell", driver.Message{Value: body, ID: driver.MessageID{Issued: true}}, "r1-0-0-0"},
		{"large sequence", driver.Message{Value: body, ID: driver.MessageID{Cell: 1, Seq: 1 << 40, Issued: true}}, "r1-1-0-1099511627776"},
		{"not issued", driver.Message{Value: body}, hex.EncodeToString(sum[:])},
	} {
		if got := p.dedupID(c.m); got != c.want {
			t.Errorf("%s: dedupID = %q, want %q", c.name, got, c.want)
		}
	}
}
