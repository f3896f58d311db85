// Package all links every broker driver into a binary: importing it for side effects runs
// each driver's init, which registers it with package driver by name. The k6 module, the
// validate command and tests import this one package instead of listing drivers, so adding
// a broker means adding one line here.
package all

import (
	_ "github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"   // amqp10: AMQP 1.0 (RabbitMQ 3.x plugin / 4.x, later Artemis and ActiveMQ)
	_ "github.com/mqbench/xk6-mqbench/internal/driver/kafkadrv"    // kafka: Kafka and Kafka-API brokers (franz-go)
	_ "github.com/mqbench/xk6-mqbench/internal/driver/mongodrv"    // mongodb: a queue in a MongoDB collection (mongo-driver v2; tested on FerretDB on PostgreSQL)
	_ "github.com/mqbench/xk6-mqbench/internal/driver/mqttdrv"     // mqtt: MQTT 5 (paho.golang) and 3.1.1 (paho.mqtt.golang) topics, shared subscriptions
	_ "github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"     // nats: core and JetStream
	_ "github.com/mqbench/xk6-mqbench/internal/driver/nsqdrv"      // nsq: nsqd topics and channels (go-nsq)
	_ "github.com/mqbench/xk6-mqbench/internal/driver/pgdrv"       // postgres: a table as a queue (INSERT; DELETE … FOR UPDATE SKIP LOCKED), pgx
	_ "github.com/mqbench/xk6-mqbench/internal/driver/pulsardrv"   // pulsar: persistent and non-persistent topics (pulsar-client-go)
	_ "github.com/mqbench/xk6-mqbench/internal/driver/rabbitdrv"   // rabbitmq: AMQP 0-9-1 classic, quorum and stream queues
	_ "github.com/mqbench/xk6-mqbench/internal/driver/redisdrv"    // redis: pub/sub and Streams
	_ "github.com/mqbench/xk6-mqbench/internal/driver/rocketmqdrv" // rocketmq: Apache RocketMQ topics and consumer groups (rocketmq-client-go)
	_ "github.com/mqbench/xk6-mqbench/internal/driver/sqsdrv"      // sqs: Amazon SQS and SQS-compatible servers (aws-sdk-go-v2)
	_ "github.com/mqbench/xk6-mqbench/internal/driver/zmqdrv"      // zeromq: brokerless PUSH/PULL and PUB/SUB over TCP (pure-Go zmq4)
)
