package rocketmqdrv

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"
)

// The driver's own admin calls (cluster info, topic creation and deletion, routes, offsets,
// consume stats) speak RocketMQ's remoting protocol directly: rocketmq-client-go v2.1.2's
// admin API needs the broker address it has no call to find, and keeps the protocol package
// internal. One call is one short TCP connection: admin calls are rare (Setup, Teardown, a
// stats sample a second).
//
// A frame is: total length (4 bytes, big endian, everything after it), header length (4
// bytes: serialisation type 0 = JSON in the high byte), the JSON header, the body.

// Request codes (RocketMQ's RequestCode) and response codes (ResponseCode) used here.
const (
	reqUpdateConsumerOffset = 15
	reqCreateTopic          = 17
	reqGetBrokerRuntimeInfo = 28
	reqGetMaxOffset         = 30
	reqCreateGroup          = 200
	reqGetRouteInfo         = 105
	reqGetBrokerClusterInfo = 106
	reqDeleteGroup          = 207
	reqGetConsumeStats      = 208
	reqDeleteTopicInBroker  = 215
	reqDeleteTopicInNamesrv = 216

	resSuccess       = 0
	resTopicNotExist = 17
)

// callTimeout bounds one admin call (dial, request, response).
const callTimeout = 5 * time.Second

var opaque atomic.Int32

type remotingHeader struct {
	Code      int               `json:"code"`
	Language  string            `json:"language"`
	Version   int               `json:"version"`
	Opaque    int32             `json:"opaque"`
	Flag      int               `json:"flag"`
	Remark    string            `json:"remark,omitempty"`
	ExtFields map[string]string `json:"extFields,omitempty"`
}

// response is one answer: its code, remark (the error text when code != 0), fields and body.
type response struct {
	Code   int
	Remark string
	Ext    map[string]string
	Body   []byte
}

// remoteError is a broker or name server answer with a code other than success.
type remoteError struct {
	Addr   string
	Req    int
	Code   int
	Remark string
}

func (e *remoteError) Error() string {
	return fmt.Sprintf("%s answered request %d with code %d: %s", e.Addr, e.Req, e.Code, e.Remark)
}

// call sends one request to addr and returns the answer; a transport problem is returned
// as is (driver.IsUnreachable recognises it), an answer with code != 0 as a *remoteError
// only when ok does not list that code.
func call(ctx context.Context, addr string, code int, ext map[string]string, ok ...int) (*response, error) {
	return callBody(ctx, addr, code, ext, nil, ok...)
}

// callBody is call with a request body.
func callBody(ctx context.Context, addr string, code int, ext map[string]string, body []byte, ok ...int) (*response, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if dl, has := ctx.Deadline(); has {
		_ = conn.SetDeadline(dl)
	}
	id := opaque.Add(1)
	hdr, err := json.Marshal(remotingHeader{Code: code, Language: "GO", Version: 317, Opaque: id, ExtFields: ext})
	if err != nil {
		return nil, err
	}
	frame := make([]byte, 8+len(hdr)+len(body))
	binary.BigEndian.PutUint32(frame[0:4], uint32(4+len(hdr)+len(body)))
	binary.BigEndian.PutUint32(frame[4:8], uint32(len(hdr))) // serialisation type 0: JSON
	copy(frame[8:], hdr)
	copy(frame[8+len(hdr):], body)
	if _, err := conn.Write(frame); err != nil {
		return nil, err
	}
	for {
		r, rid, answer, err := readFrame(conn)
		if err != nil {
			return nil, err
		}
		if !answer || rid != id { // not ours (nothing else is sent on this connection)
			continue
		}
		if r.Code != resSuccess && !contains(ok, r.Code) {
			return r, &remoteError{Addr: addr, Req: code, Code: r.Code, Remark: r.Remark}
		}
		return r, nil
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// maxFrame bounds an answer (route tables and stats are small; 16 MiB is RocketMQ's own cap).
const maxFrame = 16 << 20

// readFrame reads one frame; answer is false for a request from the other side.
func readFrame(r io.Reader) (_ *response, opaque int32, answer bool, _ error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, 0, false, err
	}
	total := binary.BigEndian.Uint32(pre[0:4])
	hl := binary.BigEndian.Uint32(pre[4:8])
	if hl>>24 != 0 {
		return nil, 0, false, fmt.Errorf("answer in serialisation type %d, want JSON (0)", hl>>24)
	}
	hl &= 0xFFFFFF
	if total > maxFrame || hl+4 > total {
		return nil, 0, false, fmt.Errorf("bad frame: length %d, header %d", total, hl)
	}
	buf := make([]byte, total-4)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, 0, false, err
	}
	var h remotingHeader
	if err := json.Unmarshal(buf[:hl], &h); err != nil {
		return nil, 0, false, fmt.Errorf("bad answer header: %w", err)
	}
	// Flag bit 0 marks an answer (RocketMQ's RPC_TYPE).
	return &response{Code: h.Code, Remark: h.Remark, Ext: h.ExtFields, Body: buf[hl:]}, h.Opaque, h.Flag&1 == 1, nil
}
