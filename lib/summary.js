// handleSummary: merges the Go measurement (full distributions, ledger, rates) with k6's
// threshold verdicts, and writes results/<scenario>/<UTC timestamp>/summary.{json,txt}.
import mq from 'k6/x/mqbench';
import { us, num, bytes, table } from './format.js';
import { renderReport } from './report.js';
import { renderJUnit } from './junit.js';

const PCTS = ['p50', 'p90', 'p95', 'p99', 'p99_9', 'p99_99', 'p99_999', 'p99_9999'];
const PCT_LABELS = ['p50', 'p90', 'p95', 'p99', 'p99.9', 'p99.99', 'p99.999', 'p99.9999'];

// thresholdsOf lists every threshold k6 evaluated, with the cell it belongs to (from the
// cell / scenario tag filter in its key).
function thresholdsOf(data, sources) {
  const out = [];
  const sourceOf = (metric, expr) => (sources.find((x) => x.metric === metric && x.expression === expr) || {}).source || expr;
  for (const [key, m] of Object.entries(data.metrics).sort(([a], [b]) => a.localeCompare(b))) {
    if (!m.thresholds) continue;
    const cell = (key.match(/[{,]cell:([^,}]+)/) || key.match(/[{,]scenario:([^,}]+)_publish/) || [])[1] || null;
    for (const [expr, t] of Object.entries(m.thresholds).sort()) {
      out.push({ metric: key, cell, expression: expr, source: sourceOf(key, expr), ok: t.ok,
        value: observed(m, expr), unit: m.contains === 'time' ? 'ms' : '' });
    }
  }
  return out;
}

// observed picks the value a threshold expression tested (so failures say what was measured).
function observed(metric, expr) {
  const agg = expr.replace(/\s/g, '').match(/^([a-z]+(\([0-9.]+\))?)/);
  if (!agg || !metric.values) return null;
  const v = metric.values[agg[1]];
  return v === undefined ? null : v;
}

export function summarize(data, report, dir) {
  const thresholds = thresholdsOf(data, report.threshold_sources || []);
  delete report.threshold_sources;
  const dropped = (id) => {
    const m = data.metrics[`dropped_iterations{scenario:${id}_publish}`];
    return m && m.values ? m.values.count : 0;
  };
  let hgrm = {}; // <dir>/hgrm/<cell>.<kind>.hgrm: the full distributions
  try {
    hgrm = mq.writeHgrm();
  } catch (e) {
    console.error(`mqbench: .hgrm files not written: ${e}`);
  }
  const summary = {
    schema: 1,
    ...report,
    finished_at: new Date().toISOString(),
    test_run_duration_ms: data.state.testRunDurationMs,
    thresholds_ok: thresholds.every((t) => t.ok),
    results_dir: dir,
    cells: report.cells.map((c) => ({
      ...c,
      dropped_iterations: dropped(c.id),
      hgrm: Object.fromEntries(Object.entries(hgrm[c.id] || {}).map(([k, f]) => [k, `hgrm/${f.file}`])),
      thresholds: thresholds.filter((t) => t.cell === c.id),
    })),
    thresholds,
  };
  // No control characters (escape sequences, carriage returns) from names or URLs: CI logs stay clean.
  const text = render(summary).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
  return {
    [`${dir}/summary.json`]: JSON.stringify(summary, null, 2) + '\n',
    [`${dir}/summary.txt`]: text,
    [`${dir}/report.html`]: renderReport(summary, hgrm),
    [`${dir}/junit.xml`]: renderJUnit(summary),
    stdout: text,
  };
}

function render(s) {
  const lines = [];
  lines.push(`mqbench ${s.scenario}  run ${s.run_id}  broker ${s.broker.type} ${s.broker.url} (ack: ${s.broker.ack_mode})`);
  lines.push('');
  const thr = [['cell', 'status', 'size', 'rate', 'batch', 'sent/s', 'acked/s', 'recv/s', 'MB/s in', 'sent', 'recv', 'lost', 'dup', 'reord', 'errors', 'dropped']];
  for (const c of s.cells) {
    thr.push([c.id, c.status, c.size, c.rate, c.batch, num(c.sender_rate), num(c.ack_rate), num(c.receiver_rate),
      num(c.receiver_bytes_per_s / 1048576, 2), c.sent, c.received, c.ledger.lost, c.ledger.duplicated,
      c.ledger.reordered, c.publish_errors, c.dropped_iterations]);
  }
  lines.push(table(thr));
  for (const [title, field] of [['end-to-end latency (send -> receive)', 'e2e_latency_us'],
    ['end-to-end latency from intended send time (no coordinated omission)', 'e2e_intended_latency_us'],
    ['publish latency (send -> broker ack)', 'publish_latency_us'],
    ['schedule lag (iteration start - intended start)', 'schedule_lag_us']]) {
    if (!s.cells.some((c) => c[field].count > 0)) continue;
    const rows = [['cell', 'count', ...PCT_LABELS, 'max']];
    for (const c of s.cells) {
      const h = c[field];
      rows.push([c.id, h.count, ...PCTS.map((p) => (h.count ? us(h.percentiles[p]) : '-')), h.count ? us(h.max) : '-']);
    }
    lines.push('', title, table(rows));
  }
  if (s.thresholds.length) {
    lines.push('', 'thresholds');
    for (const t of s.thresholds) {
      const v = t.value === null ? null : t.unit === 'ms' ? us(t.value * 1000) : num(t.value, Number.isInteger(t.value) ? 0 : 3);
      lines.push(`  ${t.ok ? 'ok  ' : 'FAIL'}  ${t.metric}  ${t.source}${v === null ? '' : `  (measured ${v})`}`);
    }
  }
  const total = s.cells.reduce((a, c) => a + c.bytes_received, 0);
  lines.push('', `received ${bytes(total)} in ${num(s.test_run_duration_ms / 1000, 1)}s; results in ${s.results_dir}`);
  if (!s.complete) lines.push('result: ABORTED (stopped before every cell ended; figures above are what was measured)');
  else lines.push(s.thresholds_ok ? 'result: PASS' : 'result: FAIL (thresholds crossed)');
  return lines.join('\n') + '\n';
}
