package mqttdrv

import (
	"bytes"
	"net"
	"testing"

	"github.com/eclipse/paho.golang/packets"
)

// captured records what is written to it, one entry per write call.
type captured struct {
	net.Conn
	writes [][]byte
}

func (c *captured) Write(b []byte) (int, error) {
	c.writes = append(c.writes, append([]byte(nil), b...))
	return len(b), nil
}

// TestWritePublishEncodesAsPaho: writePublish puts on the wire, in one write, exactly the
// bytes paho's own encoder writes in several, for every QoS, flag and size class of the
// remaining length (1 to 3 bytes of variable byte integer).
func TestWritePublishEncodesAsPaho(t *testing.T) {
	for _, c := range []struct {
		name string
		pb   packets.Publish
	}{
		{"qos0-small", packets.Publish{QoS: 0, Topic: "a/b", Payload: []byte("hi"), Properties: &packets.Properties{}}},
		{"qos1-retain-1KB", packets.Publish{QoS: 1, PacketID: 7, Retain: true, Topic: "mqbench/x", Payload: make([]byte, 1024), Properties: &packets.Properties{}}},
		{"qos2-dup-props-200KB", packets.Publish{QoS: 2, PacketID: 65535, Duplicate: true, Topic: "t", Payload: bytes.Repeat([]byte{9}, 200_000),
			Properties: &packets.Properties{User: []packets.User{{Key: "k", Value: "v"}}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want bytes.Buffer
			if _, err := c.pb.WriteTo(&want); err != nil {
				t.Fatal(err)
			}
			got := &captured{}
			if err := newWireConn(got, got).writePublish(&c.pb); err != nil {
				t.Fatal(err)
			}
			if len(got.writes) != 1 {
				t.Fatalf("%d writes, want 1", len(got.writes))
			}
			if !bytes.Equal(got.writes[0], want.Bytes()) {
				t.Fatalf("wire bytes differ from paho's encoding: got % x…, want % x…", head(got.writes[0]), head(want.Bytes()))
			}
		})
	}
}

func head(b []byte) []byte { return b[:min(len(b), 24)] }
