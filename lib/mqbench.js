// Entry script: k6 runs this with -e MQ_SCENARIO=scenarios/<name>.yaml.
// Everything per message happens in Go (k6/x/mqbench); this file only wires k6's lifecycle.
import mq from 'k6/x/mqbench';
import { summarize } from './summary.js';

const run = mq.load(__ENV.MQ_SCENARIO);

export const options = run.options;

export function setup() {
  mq.connect();
}

// One constant-arrival-rate iteration: send `batch` messages and wait for their acks.
export function publish() {
  mq.publish();
}

// One long iteration per cell: turns received latencies into samples until the drain ends.
export function consume() {
  mq.consume();
}

export function teardown() {
  mq.close();
}

export function handleSummary(data) {
  return summarize(data, JSON.parse(mq.report()), mq.resultsDir());
}
