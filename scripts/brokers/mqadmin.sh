#!/usr/bin/env bash
# Usage: scripts/brokers/mqadmin.sh SUBCOMMAND [ARGS...]
#   e.g. mqadmin.sh topicList
#        mqadmin.sh checkMsgSendRT -t TOPIC -a 1000 -s 1024
# Runs RocketMQ's mqadmin (MQAdminStartup from the pinned jars, installed first if needed)
# against the name server of scripts/brokers' rocketmq (-n is added after SUBCOMMAND).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
rocketmq_installed || rocketmq_install
rocketmq_admin "$@"
