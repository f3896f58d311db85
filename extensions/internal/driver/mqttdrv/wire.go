package mqttdrv

import (
	"net"
	"sync"

	"github.com/eclipse/paho.golang/packets"
)

// wireConn is the MQTT 5 connection both paho.golang and the publish path write to. paho
// writes a packet as several pieces (fixed header, variable header, properties, payload)
// under the connection's lock (it is a sync.Locker), one write call each: a wrapped socket
// is no writev target, so each piece left as a segment of its own and the broker woke up
// for each. The publish path (writePublish) encodes the fixed header itself and hands the
// pieces to the socket in one write: writev on TCP, one TLS record over TLS.
type wireConn struct {
	net.Conn // reads go through it (firstBytes); paho's own writes too
	sync.Mutex
	raw     net.Conn // the socket: *net.TCPConn, or *tls.Conn for mqtts://
	scratch []byte   // TLS: the pieces joined, reused
}

func newWireConn(rec, raw net.Conn) *wireConn { return &wireConn{Conn: rec, raw: raw} }

// writePublish sends pb as one write, under the lock paho's writes take too.
func (w *wireConn) writePublish(pb *packets.Publish) error {
	content := pb.Buffers()
	n := 0
	for _, b := range content {
		n += len(b)
	}
	flags := pb.QoS << 1
	if pb.Retain {
		flags |= 1
	}
	if pb.Duplicate {
		flags |= 1 << 3
	}
	var hdr [5]byte
	hdr[0] = packets.PUBLISH<<4 | flags
	h := 1 + putVBI(hdr[1:], n)
	pieces := append(net.Buffers{hdr[:h]}, content...)
	w.Lock()
	defer w.Unlock()
	if tc, ok := w.raw.(*net.TCPConn); ok {
		_, err := pieces.WriteTo(tc) // writev
		return err
	}
	w.scratch = w.scratch[:0]
	for _, b := range pieces {
		w.scratch = append(w.scratch, b...)
	}
	_, err := w.raw.Write(w.scratch)
	return err
}

// putVBI writes n as MQTT's variable byte integer into b and returns its length (1 to 4).
func putVBI(b []byte, n int) int {
	i := 0
	for {
		d := byte(n % 128)
		n /= 128
		if n > 0 {
			d |= 0x80
		}
		b[i] = d
		i++
		if n == 0 {
			return i
		}
	}
}
