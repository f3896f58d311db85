// junit.xml: one <testsuite> per cell, one <testcase> per threshold, so a CI server lists
// which SLA broke, with the measured value beside the limit. A cell that did not run to its
// end adds a failing "completed" case. Run-wide thresholds (no cell) go to a suite "run".
import { us } from './format.js';

// XML 1.0 allows tab, newline, carriage return and U+0020 upwards (minus U+FFFE/U+FFFF).
function x(s) {
  return String(s)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }[c]));
}

function measured(t) {
  if (t.value === null || t.value === undefined) return null;
  if (t.unit === 'ms') return us(t.value * 1000);
  return Number.isInteger(t.value) ? String(t.value) : t.value.toFixed(3);
}

function testcase(suite, t) {
  const metric = t.metric.replace(/\{.*$/, '');
  const name = `${metric} ${t.source || t.expression}`;
  const head = `    <testcase classname="${x(suite)}" name="${x(name)}" time="0">`;
  if (t.ok) return `${head}</testcase>`;
  const got = measured(t);
  const msg = `${name}: ${got === null ? 'not measured' : `measured ${got}`}`;
  return `${head}\n      <failure message="${x(msg)}" type="threshold">${x(`${t.metric}: ${t.source || t.expression} failed; ${got === null ? 'not measured' : `measured ${got}`} (k6 form: ${t.expression})`)}</failure>\n    </testcase>`;
}

function suite(name, seconds, cases, timestamp) {
  const failures = cases.filter((c) => c.includes('<failure')).length;
  return `  <testsuite name="${x(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="${seconds.toFixed(3)}"${timestamp ? ` timestamp="${x(timestamp)}"` : ''}>\n${cases.join('\n')}\n  </testsuite>`;
}

// renderJUnit returns junit.xml for a summary (as written to summary.json).
export function renderJUnit(s) {
  const ts = (s.finished_at || '').replace(/\.\d+Z$/, '').replace(/Z$/, '');
  const suites = [];
  for (const c of s.cells) {
    const name = `${s.scenario}.${c.id}`;
    const cases = (c.thresholds || []).map((t) => testcase(name, t));
    if (c.status && c.status !== 'complete') {
      cases.push(`    <testcase classname="${x(name)}" name="completed" time="0">\n      <failure message="${x(`cell ${c.id} ${c.status}: the run stopped before its drain ended`)}" type="incomplete"/>\n    </testcase>`);
    }
    const secs = (c.warmup_s || 0) + (c.duration_s || 0) + (c.drain_s || 0);
    suites.push(suite(name, secs, cases, ts));
  }
  const global = (s.thresholds || []).filter((t) => !t.cell);
  if (global.length) suites.push(suite(`${s.scenario}.run`, 0, global.map((t) => testcase(`${s.scenario}.run`, t)), ts));
  const all = suites.join('\n');
  const tests = (all.match(/<testcase /g) || []).length;
  const failures = (all.match(/<failure /g) || []).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mqbench ${x(s.scenario)}" tests="${tests}" failures="${failures}" errors="0" time="${((s.test_run_duration_ms || 0) / 1000).toFixed(3)}">\n${all ? `${all}\n` : ''}</testsuites>\n`;
}
