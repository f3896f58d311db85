# mqbench: declarative load and latency tests for message brokers, on k6.
# Logic lives in scripts/; each target is one line. `make help` lists them.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

SCENARIO ?= scenarios/quickstart.yaml
OUT ?=

## help: list the targets
help:
	@grep -E '^## ' $(MAKEFILE_LIST) | sed -E 's/^## ([a-z0-9-]+): /  \1\t/' | expand -t 16

## build: build bin/k6 (k6 v2 + the mqbench extension, versions pinned in extensions/go.mod)
build:
	@scripts/build.sh

## demo: run scenarios/quickstart.yaml against an embedded NATS server (no broker to install)
demo: build
	@scripts/run.sh scenarios/quickstart.yaml

## run: run one scenario against its broker: make run SCENARIO=scenarios/x.yaml [OUT=influxdb|mqbench-influxdb|mqbench-prometheus|web-dashboard]
run: build
	@OUT="$(OUT)" scripts/run.sh "$(SCENARIO)"

## distributed: one run split over RUNNERS local k6 processes as the k6-operator splits it, then merged: make distributed SCENARIO=x RUNNERS=3
distributed: build
	@bin/k6 x mqbench distributed "$(SCENARIO)" --runners "$(or $(RUNNERS),2)"

## k8s-e2e: a 2-runner TestRun on a single-node Kubernetes with the real k6-operator, built here from Go modules (root; not in make test: see docs/k8s-e2e.md)
k8s-e2e:
	@scripts/k8s/e2e.sh

## validate: check every scenario file without running it
validate: build
	@scripts/validate.sh

## test: install and start what the tests need, then run unit, integration and scenario tests
test:
	@scripts/test.sh

## check: the quick tier, no broker: lint, build, validate, selfcheck, unit tests, the itests on in-process NATS
check:
	@scripts/check.sh

## unit: the tests that need no broker (parser, thresholds vs k6, results, runner on in-process NATS)
unit:
	@scripts/unit.sh

## fuzz: every fuzz target (parser, histograms, shards, summaries) for FUZZTIME each: make fuzz FUZZTIME=5m (default 60s)
fuzz:
	@scripts/fuzz.sh "$(or $(FUZZTIME),60s)"

## lint: go vet, staticcheck (pinned), shellcheck on scripts/, go mod tidy check
lint:
	@scripts/lint.sh

## bench: throughput and latency figures beside plain client programs and the brokers' own tools
bench: build
	@scripts/bench.sh

## reproduce: the studies rerun from the shipped scenarios, a section each (REPRODUCE="latency commit-logs dissecting amqp softwaremill", REPRODUCE_SCALE=0.02 for a smoke run)
reproduce: build
	@scripts/reproduce.sh

## compare: overlay runs (RUNS="results/a results/b") or gate: BASELINE=dir CANDIDATE=dir [TOLERANCE=10%] [METRICS=...]
compare: build
	@RUNS="$(RUNS)" BASELINE="$(BASELINE)" CANDIDATE="$(CANDIDATE)" TOLERANCE="$(TOLERANCE)" METRICS="$(METRICS)" COMPARE_OUT="$(COMPARE_OUT)" scripts/compare.sh

## brokers-up: install and start the local brokers (BROKERS="nats redis" by default)
brokers-up:
	@scripts/brokers/start.sh $(or $(BROKERS),nats redis)

## brokers-down: stop every broker the scripts started
brokers-down:
	@scripts/brokers/stop.sh all

## image: the runner image without a daemon (OCI layout in .cache/image; entrypoint k6 x mqbench run, workdir /work)
image:
	@scripts/image/build.sh "$(or $(TAG),local)"

## release: reproducible binaries (linux/amd64, linux/arm64, darwin/arm64, windows/amd64), the runner image, an SBOM and SHA256SUMS in dist/<version>/
release:
	@scripts/release/build.sh

## image-docker: the same runner image with Docker (docker/Dockerfile): make image-docker IMAGE=registry/mqbench-k6:tag
image-docker:
	@docker build -f docker/Dockerfile --build-arg MQBENCH_VERSION="$$(scripts/version.sh)" -t "$(or $(IMAGE),mqbench-k6:dev)" .

## up: docker stack on 127.0.0.1: Kafka, RabbitMQ, NATS, Redis, InfluxDB, Grafana (http://127.0.0.1:3000)
up:
	@docker/up.sh

## down: stop the docker stack and remove its volumes
down:
	@docker/down.sh

## clean: remove bin/ and broker state (keeps results/)
clean:
	@rm -rf bin .cache/brokers

.PHONY: help build demo run distributed image release image-docker validate test check unit fuzz lint bench reproduce compare brokers-up brokers-down up down clean
