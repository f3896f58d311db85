#!/usr/bin/env bash
# Usage: scripts/brokers/start.sh BROKER... | all
# Installs if needed, starts each broker on 127.0.0.1 with its data under the state dir, waits
# until it really serves (ports open + a protocol-level probe) and prints
#   started BROKER pid N at HOST:PORT (X.Xs)
# A broker already running (our pid file, process alive, answering) is left alone. On failure:
# the last 30 log lines, exit 1.
#
# Environment (defaults in brackets; all addresses are 127.0.0.1):
#   MQBENCH_STATE [<repo>/.cache/brokers]  state dir: data, logs, pid files, built binaries
#   NATS_PORT [4222] NATS_MONITOR_PORT [8222] NATS_MQTT_PORT [1885 with NATS_PORT 4222]
#   REDIS_PORT [6379]
#   RABBITMQ_PORT [5672] RABBITMQ_MGMT_PORT [15672] RABBITMQ_PROMETHEUS_PORT [15692]
#   RABBITMQ_MQTT_PORT [1884 with RABBITMQ_PORT 5672]
#   KAFKA_PORT [9092] KAFKA_CONTROLLER_PORT [9093] KAFKA_SASL_PORT [KAFKA_PORT+2 = 9094]
#   KAFKA_HEAP_OPTS [-Xms512m -Xmx1g]
#   INFLUXDB_PORT [8086] INFLUXDB_RPC_PORT [8088] INFLUXDB_DATABASE [k6]
#   ARTEMIS_PORT [5673, AMQP] ARTEMIS_CORE_PORT [61617, all protocols] ARTEMIS_JAVA_MEMORY [512M]
#   ACTIVEMQ_PORT [5674, AMQP] ACTIVEMQ_OPENWIRE_PORT [61616] ACTIVEMQ_JAVA_MEMORY [512M]
#   NSQ_PORT [4250] NSQ_HTTP_PORT [4251] NSQ_MAX_MSG_SIZE [4194304]
#   MOSQUITTO_PORT [1883] MOSQUITTO_AUTOSAVE [1800 s] MOSQUITTO_CONF_EXTRA [lines appended]
#   POSTGRES_PORT [5532] POSTGRES_DATABASE [mqbench] POSTGRES_MAX_CONNECTIONS [200]
#   FERRETDB_PORT [27117] FERRETDB_DEBUG_PORT [28088] FERRETDB_DATABASE [ferretdb]
#   ELASTICMQ_PORT [9424, SQS API] ELASTICMQ_JAVA_MEMORY [256M]
#   ROCKETMQ_NAMESRV_PORT [9976] ROCKETMQ_PORT [11011; and -2, +1] ROCKETMQ_JAVA_MEMORY [1g]
#   ROCKETMQ_FLUSH_DISK_TYPE [ASYNC_FLUSH]
#   PULSAR_PORT [6750] PULSAR_WEB_PORT [8180, admin REST] PULSAR_HEAP_OPTS [-Xms256m -Xmx1g …]
#   START_TIMEOUT [120 s rabbitmq/kafka/artemis/activemq/rocketmq/pulsar, 30 s others]
# Ports used at start are remembered (run/BROKER.ports) for the other scripts until stop.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_cmd curl curl
expand_brokers "$@"
for b in "${BROKERS[@]}"; do start_one "$b"; done
