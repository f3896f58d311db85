package mqttdrv

import (
	"context"
	"io"
	"net"
	"sync"
	"time"
)

// A broker that speaks MQTT 3.1.1 only answers an MQTT 5 CONNECT in one of two ways: a 3.1.1
// CONNACK with return code 1 (unacceptable protocol version), which paho.golang fails to
// parse as an MQTT 5 CONNACK, or by closing the connection. Both leave the user with a parse
// error or an EOF; these two helpers turn them into "set mqtt.protocol: 3.1.1".

// firstBytes keeps the first four bytes read from a connection: the whole of a 3.1.1
// CONNACK.
type firstBytes struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
}

func (f *firstBytes) Read(b []byte) (int, error) {
	n, err := f.Conn.Read(b)
	f.mu.Lock()
	if k := min(4-len(f.buf), n); k > 0 {
		f.buf = append(f.buf, b[:k]...)
	}
	f.mu.Unlock()
	return n, err
}

// v311Connack: the broker answered with a 3.1.1 CONNACK refusing the protocol version.
func (f *firstBytes) v311Connack() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.buf) == 4 && f.buf[0] == 0x20 && f.buf[1] == 0x02 && f.buf[3] == 0x01
}

// speaks311 opens a second connection and sends a minimal 3.1.1 CONNECT (clean session,
// the run's client id with "-probe"): any CONNACK back means the broker speaks 3.1.1. It
// disconnects at once, so the probe leaves no session behind.
func speaks311(ctx context.Context, p params) bool {
	c, err := dialTCP(ctx, p)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(p.timeout))
	id := p.clientID + "-probe"
	body := []byte{0, 4, 'M', 'Q', 'T', 'T', 4, 0x02, 0, 10, byte(len(id) >> 8), byte(len(id))}
	body = append(body, id...)
	pkt := append([]byte{0x10}, remainingLength(len(body))...)
	if _, err := c.Write(append(pkt, body...)); err != nil {
		return false
	}
	ack := make([]byte, 4)
	if _, err := io.ReadFull(c, ack); err != nil || ack[0] != 0x20 || ack[1] != 0x02 {
		return false
	}
	_, _ = c.Write([]byte{0xE0, 0}) // DISCONNECT
	return true
}

// remainingLength is MQTT's variable-length encoding of a packet's remaining length.
func remainingLength(n int) []byte {
	var out []byte
	for {
		b := byte(n % 128)
		n /= 128
		if n > 0 {
			b |= 0x80
		}
		out = append(out, b)
		if n == 0 {
			return out
		}
	}
}
