// report.html: one self-contained page per run (inline CSS and SVG, no network), opened from
// disk. Per cell: latency by percentile (publish, end-to-end, end-to-end from the intended
// send time) on the "nines" axis with the thresholds marked, throughput over time (sent vs
// received), the delivery ledger and the thresholds with their verdicts.
import { percentileChart, timeChart, esc, usLabel, CHART_CSS, PALETTE } from './svgchart.js';

const KINDS = [
  { kind: 'publish', field: 'publish_latency_us', name: 'publish', metric: 'mq_publish_latency', color: '#1f77b4' },
  { kind: 'e2e', field: 'e2e_latency_us', name: 'e2e', metric: 'mq_e2e_latency', color: '#d62728' },
  { kind: 'e2e_intended', field: 'e2e_intended_latency_us', name: 'e2e intended', metric: 'mq_e2e_intended_latency', color: '#ff7f0e', dash: '6 4' },
];
const PCTS = [['p50', 0.5], ['p90', 0.9], ['p99', 0.99], ['p99_9', 0.999], ['p99_99', 0.9999], ['p99_999', 0.99999], ['p99_9999', 0.999999]];

const num = (v, d = 0) => (v === undefined || v === null || Number.isNaN(v) ? '-' : Number(v).toFixed(d));

// curve: the distribution's rows from the .hgrm file, or else the summary's percentiles.
function curve(cell, k, hgrm) {
  const h = cell[k.field];
  if (!h || !h.count) return null;
  const rows = hgrm && hgrm[cell.id] && hgrm[cell.id][k.kind] && hgrm[cell.id][k.kind].points;
  let points = rows && rows.length ? rows.map((p) => [p[0], p[1]]) : [[0, h.min], ...PCTS.map(([key, q]) => [q, h.percentiles[key]])];
  // A distribution cannot resolve quantiles beyond 1 - 1/count: stop the curve there, at max.
  const qmax = 1 - 1 / h.count;
  points = points.filter((p) => p[0] <= qmax + 1e-12);
  points.push([qmax, h.max]);
  const marks = PCTS.filter(([, q]) => q <= qmax + 1e-12).map(([key, q]) => ({ q, us: h.percentiles[key], label: key.replace('_', '.') }));
  marks.push({ q: qmax, us: h.max, label: 'max' });
  return { name: k.name, color: k.color, dash: k.dash, points, marks };
}

// limits: latency thresholds of the form p(N) < X / med < X, as markers on the chart.
function limits(cell, metrics) {
  const out = [];
  for (const t of cell.thresholds || []) {
    const base = t.metric.replace(/\{.*$/, '');
    if (!metrics.includes(base)) continue;
    const m = t.expression.replace(/\s/g, '').match(/^(p\(([\d.]+)\)|med)<=?([\d.]+)$/);
    if (!m) continue;
    const q = m[2] ? Number(m[2]) / 100 : 0.5;
    out.push({ q, us: Number(m[3]) * 1000, ok: t.ok, label: `${base.replace(/^mq_|_latency$/g, '')} ${t.source || t.expression}` });
  }
  return out;
}

function latencyTable(cell) {
  const rows = KINDS.concat([{ field: 'schedule_lag_us', name: 'schedule lag' }]).filter((k) => cell[k.field] && cell[k.field].count);
  if (!rows.length) return '<p class="muted">no latency recorded</p>';
  const head = `<tr><th>latency</th><th>count</th><th>min</th><th>mean</th>${PCTS.map(([k]) => `<th>${k.replace('_', '.')}</th>`).join('')}<th>max</th></tr>`;
  const body = rows.map((k) => {
    const h = cell[k.field];
    return `<tr><td>${esc(k.name)}</td><td>${h.count}</td><td>${usLabel(h.min)}</td><td>${usLabel(h.mean)}</td>${PCTS.map(([p]) => `<td>${usLabel(h.percentiles[p])}</td>`).join('')}<td>${usLabel(h.max)}</td></tr>`;
  }).join('');
  return `<table class="num"><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

function ledgerTable(cell) {
  const l = cell.ledger || {};
  const keys = ['issued', 'failed', 'unique_received', 'lost', 'duplicated', 'reordered', 'late', 'unknown'];
  const bad = (k) => ['lost', 'duplicated', 'failed'].includes(k) && l[k] > 0;
  return `<table class="num ledger"><thead><tr>${keys.map((k) => `<th>${k.replace('_', ' ')}</th>`).join('')}<th>final</th></tr></thead>` +
    `<tbody><tr>${keys.map((k) => `<td${bad(k) ? ' class="bad"' : ''}>${l[k] === undefined ? '-' : l[k]}</td>`).join('')}<td>${cell.ledger_final ? 'yes' : 'no'}</td></tr></tbody></table>`;
}

function measured(t) {
  if (t.value === null || t.value === undefined) return '-';
  if (t.unit === 'ms') return usLabel(t.value * 1000);
  return num(t.value, Number.isInteger(t.value) ? 0 : 3);
}

function thresholdTable(list) {
  if (!list.length) return '<p class="muted">no thresholds</p>';
  const rows = list.map((t) => `<tr class="${t.ok ? 'pass' : 'fail'}"><td class="verdict">${t.ok ? 'pass' : 'FAIL'}</td><td><code>${esc(t.metric)}</code></td><td><code>${esc(t.source || t.expression)}</code></td><td>${esc(measured(t))}</td></tr>`);
  return `<table class="thresholds"><thead><tr><th></th><th>metric</th><th>threshold</th><th>measured</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function throughput(cell) {
  const tl = cell.timeline || [];
  if (!tl.length) return '<p class="muted">no timeline recorded</p>';
  const step = cell.timeline_step_s || 1;
  // Each slot as a flat step from t to t + step: counts per slot, not a trend between samples.
  const steps = (f) => tl.flatMap((p) => [[p.t, f(p) / step], [p.t + step, f(p) / step]]);
  const warm = cell.warmup_s || 0;
  const end = warm + (cell.duration_s || 0);
  return timeChart({
    title: `${cell.id}: throughput over time (msg/s)`,
    xLabel: 'seconds since the cell started',
    yLabel: 'messages per second',
    series: [
      { name: 'sent', color: '#1f77b4', width: 4, opacity: 0.45, points: steps((p) => p.sent) },
      { name: 'received', color: '#2ca02c', dash: '5 3', points: steps((p) => p.received) },
    ],
    bands: [{ from: 0, to: warm, label: 'warm-up' }, { from: end, to: end + (cell.drain_s || 0), label: 'drain' }],
  });
}

function cellSection(s, cell, hgrm) {
  const series = KINDS.map((k) => curve(cell, k, hgrm)).filter(Boolean);
  const pchart = series.length
    ? percentileChart({ title: `${cell.id}: latency by percentile`, series, limits: limits(cell, KINDS.map((k) => k.metric)) })
    : '<p class="muted">no latency recorded</p>';
  const ok = (cell.thresholds || []).every((t) => t.ok);
  const own = (hgrm && hgrm[cell.id]) || {};
  const files = ['publish', 'e2e', 'e2e_intended', 'schedule_lag'].filter((k) => own[k]).map((k) => `<a href="hgrm/${esc(own[k].file)}">${esc(own[k].file)}</a>`).join(' ');
  return `<section class="cell" id="cell-${esc(cell.id)}">
<h2>${esc(cell.id)} <small>${esc(cell.size)} at ${cell.rate} msg/s, batch ${cell.batch}, ${cell.producers} producer(s), ${cell.consumers} consumer(s), ${cell.warmup_s}s warm-up + ${cell.duration_s}s + ${cell.drain_s}s drain</small>
<span class="badge ${ok ? 'pass' : 'fail'}">${ok ? 'pass' : 'FAIL'}</span>${cell.status && cell.status !== 'complete' ? ` <span class="badge fail">${esc(cell.status)}</span>` : ''}</h2>
<div class="charts">${pchart}${throughput(cell)}</div>
<p class="rates">sent ${num(cell.sender_rate)}/s, acked ${num(cell.ack_rate)}/s, received ${num(cell.receiver_rate)}/s (${num(cell.receiver_bytes_per_s / 1048576, 2)} MB/s); ${cell.sent} sent, ${cell.received} received after the warm-up; ${cell.publish_errors} publish errors, ${cell.dropped_iterations || 0} dropped iterations</p>
<h3>latency</h3>${latencyTable(cell)}
<h3>ledger</h3>${ledgerTable(cell)}
<h3>thresholds</h3>${thresholdTable(cell.thresholds || [])}
${files ? `<p class="files">full distributions (HdrHistogram .hgrm, \u00b5s): ${files}</p>` : ''}
</section>`;
}

function overview(s, hgrm) {
  const rows = s.cells.map((c) => {
    const e = c.e2e_latency_us || { percentiles: {} };
    const ok = (c.thresholds || []).every((t) => t.ok);
    return `<tr><td><a href="#cell-${esc(c.id)}">${esc(c.id)}</a></td><td>${esc(c.status || '')}</td><td>${esc(c.size)}</td><td>${c.rate}</td><td>${num(c.sender_rate)}</td><td>${num(c.receiver_rate)}</td>` +
      `<td>${e.count ? usLabel(e.percentiles.p50) : '-'}</td><td>${e.count ? usLabel(e.percentiles.p99) : '-'}</td><td>${e.count ? usLabel(e.percentiles.p99_9) : '-'}</td><td>${e.count ? usLabel(e.max) : '-'}</td>` +
      `<td${c.ledger && c.ledger.lost ? ' class="bad"' : ''}>${c.ledger && c.ledger.lost !== undefined ? c.ledger.lost : '-'}</td><td class="verdict ${ok ? 'pass' : 'fail'}">${ok ? 'pass' : 'FAIL'}</td></tr>`;
  });
  const table = `<table class="num overview"><thead><tr><th>cell</th><th>status</th><th>size</th><th>rate</th><th>sent/s</th><th>recv/s</th><th>e2e p50</th><th>e2e p99</th><th>e2e p99.9</th><th>e2e max</th><th>lost</th><th>thresholds</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  const series = s.cells.map((c, i) => {
    const k = KINDS[1];
    const cv = curve(c, k, hgrm);
    return cv && { ...cv, name: `${c.id} e2e (${c.size} @ ${c.rate}/s)`, color: PALETTE[i % PALETTE.length], dash: undefined };
  }).filter(Boolean);
  const chart = series.length > 1 ? `<div class="charts">${percentileChart({ title: 'end-to-end latency by percentile, every cell', series })}</div>` : '';
  return `<section id="overview"><h2>cells</h2>${table}${chart}</section>`;
}

const PAGE_CSS = `
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1b1f;background:#f6f7f9;margin:0;padding:20px 24px 40px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:26px 0 8px}h2 small{font-weight:normal;color:#666;font-size:13px;margin-left:6px}h3{font-size:14px;margin:14px 0 6px;color:#333}
header p{margin:2px 0;color:#444}.muted{color:#888}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;font-size:12px;font-weight:600;vertical-align:middle;margin-left:6px}
.badge.pass{background:#e3f4e8;color:#1d6b34}.badge.fail{background:#fde4e4;color:#a11d1d}
.charts{display:flex;flex-wrap:wrap;gap:14px;margin:8px 0}
table{border-collapse:collapse;background:#fff;font-size:13px;margin:4px 0}
th,td{border:1px solid #e0e0e4;padding:3px 9px}th{background:#f0f1f4;font-weight:600;text-align:center}
table.num td{text-align:right}table.num td:first-child{text-align:left}
td.bad{background:#fde4e4;color:#a11d1d;font-weight:600}
tr.fail td,td.verdict.fail{color:#a11d1d;font-weight:600}td.verdict.pass,tr.pass td.verdict{color:#1d6b34}
section.cell{border-top:1px solid #dcdce2;margin-top:24px}
code{font:12px ui-monospace,Menlo,Consolas,monospace}
footer{margin-top:30px;color:#777;font-size:12px}
`;

// Legend entries toggle their series; the marker tells a headless browser the page's script ran.
const SCRIPT = `(function(){
  document.querySelectorAll('figure.chart').forEach(function(fig){
    fig.querySelectorAll('.legend-item').forEach(function(item){
      item.addEventListener('click', function(){
        var name = item.getAttribute('data-series'), off = item.classList.toggle('off');
        fig.querySelectorAll('g.series').forEach(function(g){ if (g.getAttribute('data-series') === name) g.classList.toggle('hidden', off); });
      });
    });
  });
  document.documentElement.setAttribute('data-mq-ready', String(document.querySelectorAll('g.series path').length));
})();`;

// renderReport returns report.html for a summary (as written to summary.json) and the .hgrm
// rows by cell and kind (from mq.writeHgrm()).
export function renderReport(s, hgrm) {
  const verdict = s.complete === false ? ['fail', 'ABORTED'] : s.thresholds_ok ? ['pass', 'PASS'] : ['fail', 'FAIL'];
  const global = (s.thresholds || []).filter((t) => !t.cell);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>mqbench ${esc(s.scenario)} ${esc(s.run_id)}: ${verdict[1]}</title>
<style>${PAGE_CSS}${CHART_CSS}</style></head>
<body>
<header><h1>mqbench: ${esc(s.scenario)} <span class="badge ${verdict[0]}" id="verdict">${verdict[1]}</span></h1>
${s.description ? `<p>${esc(s.description)}</p>` : ''}
<p>broker <b>${esc(s.broker.type)}</b> ${esc(s.broker.url)} (publish ack: ${esc(s.broker.ack_mode)}), run ${esc(s.run_id)}, finished ${esc(s.finished_at || '')}, ${num((s.test_run_duration_ms || 0) / 1000, 1)} s</p>
<p class="muted">Latency is from the HdrHistogram of every message after the warm-up (3 significant digits). The percentile axis is logarithmic in nines: each step right is ten times rarer. "e2e intended" measures from the scheduled send time, so generator lateness shows as latency (no coordinated omission).</p></header>
${overview(s, hgrm)}
${s.cells.map((c) => cellSection(s, c, hgrm)).join('\n')}
${global.length ? `<section><h2>run-wide thresholds</h2>${thresholdTable(global)}</section>` : ''}
<footer>Files beside this page: summary.json, summary.txt, junit.xml, hgrm/*.hgrm. Generated by mqbench.</footer>
<script>${SCRIPT}</script>
</body></html>
`;
}
