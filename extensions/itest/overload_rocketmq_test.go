package itest

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The rocketmq overload test and its depth read: the consumer group's lag as mqadmin
// consumerProgress shows it, asked in RocketMQ's remoting protocol (rocketmq-client-go's admin
// API has no offsets call, and an mqadmin JVM takes seconds to start here: longer than the
// drain's window for a read).

// The group's lag counts what the consumer has taken since its client last told the broker its
// offset. Each pull request carries it; with the client's cache full (1,024 a queue: the
// consumer is slower than the producers) a queue is pulled again only once the consumer took
// some of it, and between pulls the offset goes out every 5 s (_PersistOffsetInterval): up to
// 5 s of consumer_rate, and a pull of 32 per queue. (Measured here, 4 runs: the lag at the
// freeze stood at most 96 above held.)
var rocketmqOverload = overloadBroker{"rocketmq", "MQBENCH_ROCKETMQ_URL", "rocketmq://127.0.0.1:9976", 1000, 400, rocketmqDepth, 5*400 + 4*32, 0}

func TestRocketMQOverload(t *testing.T) { k6Binary(t); overloadRun(t, rocketmqOverload) }

// rocketmqDepth: over the topic's queues, the broker's offset minus the group's committed
// offset (GET_CONSUME_STATS). The run's consumer group is named after the destination
// (testdata/overload-rocketmq.yaml); the broker is the topic's master in the name server's
// route.
func rocketmqDepth(_ context.Context, url, dest string) (func(context.Context) (int64, error), func(), error) {
	namesrv := strings.Split(strings.TrimPrefix(url, "rocketmq://"), ";")[0]
	var broker string
	read := func(ctx context.Context) (int64, error) {
		if broker == "" {
			route, err := rocketmqCall(ctx, namesrv, 105, map[string]string{"topic": dest}) // GET_ROUTEINFO_BY_TOPIC
			if err != nil {
				return 0, err
			}
			m := regexp.MustCompile(`[{,]0:"([^"]+)"`).FindSubmatch(route) // brokerAddrs' master (id 0)
			if m == nil {
				return 0, fmt.Errorf("route of %s names no master: %.200s", dest, route)
			}
			broker = string(m[1])
		}
		stats, err := rocketmqCall(ctx, broker, 208, map[string]string{"consumerGroup": dest, "topic": dest}) // GET_CONSUME_STATS
		if err != nil {
			return 0, err
		}
		// offsetTable's keys are objects (fastjson): read its values, in order.
		var lag int64
		vals := regexp.MustCompile(`"brokerOffset":(\d+),"consumerOffset":(\d+)`).FindAllSubmatch(stats, -1)
		if len(vals) == 0 {
			return 0, fmt.Errorf("consume stats of group %s name no queue: %.200s", dest, stats)
		}
		for _, v := range vals {
			b, _ := strconv.ParseInt(string(v[1]), 10, 64)
			c, _ := strconv.ParseInt(string(v[2]), 10, 64)
			lag += b - c
		}
		return lag, nil
	}
	return read, func() {}, nil
}

// rocketmqCall sends one request (code, extFields) to addr on its own connection and returns
// the answer's body. A frame: total length, header length (serialisation type 0, JSON, in the
// high byte), the JSON header, the body.
func rocketmqCall(ctx context.Context, addr string, code int, ext map[string]string) ([]byte, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	hdr, _ := json.Marshal(map[string]any{"code": code, "language": "GO", "version": 317, "opaque": 1, "flag": 0, "extFields": ext})
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(hdr)))
	frame = binary.BigEndian.AppendUint32(frame, uint32(len(hdr)))
	if _, err := conn.Write(append(frame, hdr...)); err != nil {
		return nil, err
	}
	var pre [8]byte
	if _, err := io.ReadFull(conn, pre[:]); err != nil {
		return nil, err
	}
	total, hl := binary.BigEndian.Uint32(pre[:4]), binary.BigEndian.Uint32(pre[4:])&0xFFFFFF
	if total > 16<<20 || hl+4 > total {
		return nil, fmt.Errorf("%s: bad frame (length %d, header %d)", addr, total, hl)
	}
	buf := make([]byte, total-4)
	if _, err := io.ReadFull(conn, buf); err != nil {
		return nil, err
	}
	var h struct {
		Code   int    `json:"code"`
		Remark string `json:"remark"`
	}
	if err := json.Unmarshal(buf[:hl], &h); err != nil {
		return nil, fmt.Errorf("%s: answer header: %v", addr, err)
	}
	if h.Code != 0 {
		return nil, fmt.Errorf("%s answered request %d with code %d: %s", addr, code, h.Code, h.Remark)
	}
	return buf[hl:], nil
}
