// Entry script: k6 runs this with -e MQ_SCENARIO=scenarios/<name>.yaml.
// Only k6's lifecycle is wired here: everything per message, the thresholds' values and the
// results folder are Go (k6/x/mqbench).
import mq from 'k6/x/mqbench';

const run = mq.load(__ENV.MQ_SCENARIO);

export const options = run.options;

export function setup() {
  mq.connect();
}

// One arrival-rate iteration: send `batch` messages (acknowledgements are awaited in Go).
export function publish() {
  mq.publish();
}

// rate: max: one long iteration per producer connection, its closed loop in Go.
export function publishMax() {
  mq.publishMax();
}

// One long iteration per cell: per-second aggregates and verdicts to k6 until the drain ends.
export function consume() {
  mq.consume();
}

export function teardown() {
  mq.close();
}

// Go writes results/<scenario>/<ts>/ (summary.json, summary.txt, report.html, junit.xml,
// hgrm/, hdr/, hlog/) and returns the console text.
export function handleSummary(data) {
  return mq.writeResults(data);
}
