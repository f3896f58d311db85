#!/usr/bin/env bash
# Usage: scripts/brokers/kafka-tool.sh CLASS [ARGS...]
#   e.g. kafka-tool.sh org.apache.kafka.tools.TopicCommand --bootstrap-server 127.0.0.1:9092 --list
#        kafka-tool.sh org.apache.kafka.tools.ProducerPerformance --topic t --num-records 1000 ...
# Runs a Kafka CLI class from the pinned jars (installed first if needed), warnings to stderr.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
kafka_installed || kafka_install
kafka_tool "$@"
