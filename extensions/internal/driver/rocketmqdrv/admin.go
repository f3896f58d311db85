package rocketmqdrv

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
)

// RocketMQ's name server and broker write JSON with fastjson, which leaves integer map keys
// unquoted ({0:"127.0.0.1:10911"}, the broker ids of brokerAddrs); quoteIntKeys makes that
// standard JSON. Addresses and names never contain "{0:" or ",0:".
var intKey = regexp.MustCompile(`([{,])(-?[0-9]+):`)

func quoteIntKeys(b []byte) []byte { return intKey.ReplaceAll(b, []byte(`$1"$2":`)) }

type brokerData struct {
	Cluster     string            `json:"cluster"`
	BrokerName  string            `json:"brokerName"`
	BrokerAddrs map[string]string `json:"brokerAddrs"` // broker id → address; "0" is the master
}

type queueData struct {
	BrokerName     string `json:"brokerName"`
	ReadQueueNums  int    `json:"readQueueNums"`
	WriteQueueNums int    `json:"writeQueueNums"`
}

// routeData is the name server's route of a topic (TopicRouteData).
type routeData struct {
	BrokerDatas []brokerData `json:"brokerDatas"`
	QueueDatas  []queueData  `json:"queueDatas"`
}

// master returns the address of a broker group's master (id 0), or "".
func (b brokerData) master() string { return b.BrokerAddrs["0"] }

// clusterMasters asks the name server for every broker group and returns the masters'
// addresses by broker name (GET_BROKER_CLUSTER_INFO).
func clusterMasters(ctx context.Context, namesrv string) (map[string]string, error) {
	r, err := call(ctx, namesrv, reqGetBrokerClusterInfo, nil)
	if err != nil {
		return nil, err
	}
	var info struct {
		BrokerAddrTable map[string]brokerData `json:"brokerAddrTable"`
	}
	if err := json.Unmarshal(quoteIntKeys(r.Body), &info); err != nil {
		return nil, fmt.Errorf("cluster info from %s: %w", namesrv, err)
	}
	m := map[string]string{}
	for name, b := range info.BrokerAddrTable {
		if a := b.master(); a != "" {
			m[name] = a
		}
	}
	return m, nil
}

// topicRoute asks the name server for the topic's route; exists is false when the name
// server knows no such topic.
func topicRoute(ctx context.Context, namesrv, topic string) (r *routeData, exists bool, err error) {
	resp, err := call(ctx, namesrv, reqGetRouteInfo, map[string]string{"topic": topic}, resTopicNotExist)
	if err != nil {
		return nil, false, err
	}
	if resp.Code == resTopicNotExist {
		return nil, false, nil
	}
	r = &routeData{}
	if err := json.Unmarshal(quoteIntKeys(resp.Body), r); err != nil {
		return nil, false, fmt.Errorf("route of %s from %s: %w", topic, namesrv, err)
	}
	return r, true, nil
}

// createTopic creates (or updates) the topic on one broker with queues read and write
// queues, readable and writable (perm 6), not ordered; the broker registers it with the name
// servers.
func createTopic(ctx context.Context, broker, topic string, queues int) error {
	n := strconv.Itoa(queues)
	_, err := call(ctx, broker, reqCreateTopic, map[string]string{
		"topic": topic, "defaultTopic": "TBW102", "readQueueNums": n, "writeQueueNums": n,
		"perm": "6", "topicFilterType": "SINGLE_TAG", "topicSysFlag": "0", "order": "false",
	})
	return err
}

func deleteTopicInBroker(ctx context.Context, broker, topic string) error {
	_, err := call(ctx, broker, reqDeleteTopicInBroker, map[string]string{"topic": topic})
	return err
}

func deleteTopicInNamesrv(ctx context.Context, namesrv, topic string) error {
	_, err := call(ctx, namesrv, reqDeleteTopicInNamesrv, map[string]string{"topic": topic})
	return err
}

// deleteGroup removes a consumer group's subscription config and its offsets on one broker.
func deleteGroup(ctx context.Context, broker, group string) error {
	_, err := call(ctx, broker, reqDeleteGroup, map[string]string{"groupName": group, "cleanOffset": "true"})
	return err
}

// maxOffset is the offset the next message of one queue gets (its length in messages).
func maxOffset(ctx context.Context, broker, topic string, queue int) (int64, error) {
	r, err := call(ctx, broker, reqGetMaxOffset, map[string]string{"topic": topic, "queueId": strconv.Itoa(queue)})
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(r.Ext["offset"], 10, 64)
}

// dispatchBehind is how many bytes of a broker's commit log its consume queues do not count
// yet (GET_BROKER_RUNTIME_INFO's dispatchBehindBytes): a send is answered once the commit log
// holds it, and a queue's end (maxOffset) moves when the broker's dispatch thread gets to it.
func dispatchBehind(ctx context.Context, broker string) (int64, error) {
	r, err := call(ctx, broker, reqGetBrokerRuntimeInfo, nil)
	if err != nil {
		return 0, err
	}
	var kv struct {
		Table map[string]string `json:"table"`
	}
	if err := json.Unmarshal(r.Body, &kv); err != nil {
		return 0, fmt.Errorf("runtime info from %s: %w", broker, err)
	}
	v, ok := kv.Table["dispatchBehindBytes"]
	if !ok {
		return 0, fmt.Errorf("runtime info from %s: no dispatchBehindBytes", broker)
	}
	return strconv.ParseInt(v, 10, 64)
}

// createGroup creates (or updates) a consumer group on one broker with RocketMQ's defaults
// (mqadmin updateSubGroup): the broker refuses offsets for a group it does not know.
func createGroup(ctx context.Context, broker, group string) error {
	body, err := json.Marshal(map[string]any{
		"groupName": group, "consumeEnable": true, "consumeFromMinEnable": true,
		"consumeBroadcastEnable": true, "retryQueueNums": 1, "retryMaxTimes": 16,
		"brokerId": 0, "whichBrokerWhenConsumeSlowly": 1, "notifyConsumerIdsChangedEnable": true,
	})
	if err != nil {
		return err
	}
	_, err = callBody(ctx, broker, reqCreateGroup, nil, body)
	return err
}

// commitOffset stores a consumer group's offset of one queue on the broker.
func commitOffset(ctx context.Context, broker, group, topic string, queue int, offset int64) error {
	_, err := call(ctx, broker, reqUpdateConsumerOffset, map[string]string{
		"consumerGroup": group, "topic": topic, "queueId": strconv.Itoa(queue),
		"commitOffset": strconv.FormatInt(offset, 10),
	})
	return err
}

// offsetWrapper is one queue's entry of ConsumeStats.offsetTable. The table's keys are JSON
// objects (MessageQueue), which no JSON decoder takes, so the entries are picked out whole.
type offsetWrapper struct {
	BrokerOffset   int64 `json:"brokerOffset"`
	ConsumerOffset int64 `json:"consumerOffset"`
}

var offsetEntry = regexp.MustCompile(`\{[^{}]*"brokerOffset"[^{}]*\}`)

// backlog is a consumer group's lag on the topic at one broker: over the topic's queues, the
// broker's offset minus the group's committed offset (0 where it committed none), as
// mqadmin consumerProgress shows it (GET_CONSUME_STATS).
func backlog(ctx context.Context, broker, group, topic string) (int64, error) {
	r, err := call(ctx, broker, reqGetConsumeStats, map[string]string{"consumerGroup": group, "topic": topic})
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, e := range offsetEntry.FindAll(r.Body, -1) {
		var w offsetWrapper
		if err := json.Unmarshal(e, &w); err != nil {
			return 0, fmt.Errorf("consume stats from %s: %w", broker, err)
		}
		if d := w.BrokerOffset - w.ConsumerOffset; d > 0 {
			sum += d
		}
	}
	return sum, nil
}
