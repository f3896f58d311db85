// Inline SVG line charts for report.html: no library, no network. Two kinds:
//   percentileChart: latency by percentile on HdrHistogram's "nines" axis
//     (x = -log10(1 - q): 50% -> 0.3, 90% -> 1, 99% -> 2, ... 99.9999% -> 6; y log scale)
//   timeChart: a value over time (linear axes), with shaded phases (warm-up, drain).
// Every series is a <g class="series" data-series="NAME"> holding a <title>, a non-empty
// <path> and point markers with tooltips; the legend names each series.

export const PALETTE = ['#d62728', '#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];

const W = 640;
const H = 340;
const M = { top: 30, right: 34, bottom: 46, left: 70 };

// esc makes text safe inside HTML/SVG text and attributes (control characters dropped).
export function esc(s) {
  return String(s)
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

// Microseconds as a short label: 850us, 1.2ms, 3s.
export function usLabel(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '-';
  const fmt = (x, unit) => `${x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1).replace(/\.0$/, '') : x.toFixed(2).replace(/\.?0+$/, '')}${unit}`;
  if (v < 1000) return fmt(v, '\u00b5s');
  if (v < 1e6) return fmt(v / 1e3, 'ms');
  return fmt(v / 1e6, 's');
}

// nines maps a quantile (0..1) to the percentile axis.
export function nines(q) {
  return -Math.log10(Math.max(1 - q, 1e-7));
}

export function pctLabel(x) {
  if (x <= 0) return '0%';
  const q = 1 - 10 ** -x;
  return `${(q * 100).toFixed(Math.max(0, Math.round(x) - 2))}%`;
}

function fmt(n) {
  return Number(n.toFixed(1));
}

function logTicks(lo, hi) {
  const out = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
    }
  }
  return out;
}

function linTicks(hi) {
  if (hi <= 0) return [0];
  const raw = hi / 5;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
  const out = [];
  for (let v = 0; v <= hi * 1.0001; v += step) out.push(v);
  return out;
}

function frame(opts, xs, ys) {
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const sx = (x) => M.left + ((x - xs.lo) / (xs.hi - xs.lo || 1)) * pw;
  const sy = ys.log
    ? (y) => M.top + ph - ((Math.log10(Math.max(y, ys.lo)) - Math.log10(ys.lo)) / (Math.log10(ys.hi) - Math.log10(ys.lo) || 1)) * ph
    : (y) => M.top + ph - ((y - ys.lo) / (ys.hi - ys.lo || 1)) * ph;
  const parts = [];
  parts.push(`<rect class="plot" x="${M.left}" y="${M.top}" width="${pw}" height="${ph}"/>`);
  for (const b of opts.bands || []) {
    if (b.to <= b.from) continue;
    const x0 = sx(Math.max(b.from, xs.lo));
    const x1 = sx(Math.min(b.to, xs.hi));
    parts.push(`<g class="band"><title>${esc(b.label)}</title><rect x="${fmt(x0)}" y="${M.top}" width="${fmt(Math.max(x1 - x0, 0))}" height="${ph}"/><text x="${fmt(x0 + 4)}" y="${M.top + 12}">${esc(b.label)}</text></g>`);
  }
  for (const t of xs.ticks) {
    const x = fmt(sx(t.v));
    parts.push(`<line class="grid" x1="${x}" x2="${x}" y1="${M.top}" y2="${M.top + ph}"/><text class="tick" x="${x}" y="${M.top + ph + 16}" text-anchor="middle">${esc(t.label)}</text>`);
  }
  for (const t of ys.ticks) {
    const y = fmt(sy(t.v));
    parts.push(`<line class="grid" x1="${M.left}" x2="${M.left + pw}" y1="${y}" y2="${y}"/><text class="tick" x="${M.left - 6}" y="${y + 4}" text-anchor="end">${esc(t.label)}</text>`);
  }
  parts.push(`<text class="axis" x="${M.left + pw / 2}" y="${H - 8}" text-anchor="middle">${esc(opts.xLabel)}</text>`);
  parts.push(`<text class="axis" transform="translate(14 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(opts.yLabel)}</text>`);
  parts.push(`<text class="title" x="${M.left}" y="18">${esc(opts.title)}</text>`);
  return { sx, sy, parts, pw, ph };
}

function seriesSVG(f, s, i, yFmt, xFmt) {
  const color = s.color || PALETTE[i % PALETTE.length];
  const pts = s.points.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]));
  if (!pts.length) return '';
  const d = pts.map((p, j) => `${j ? 'L' : 'M'}${fmt(f.sx(p[0]))} ${fmt(f.sy(p[1]))}`).join(' ');
  const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
  const marks = (s.marks || []).map((m) => `<circle cx="${fmt(f.sx(m.x))}" cy="${fmt(f.sy(m.y))}" r="3.5" fill="${color}"><title>${esc(`${s.name} ${m.label}: ${yFmt(m.y)}`)}</title></circle>`).join('');
  const width = s.width || 2;
  const op = s.opacity ? ` stroke-opacity="${s.opacity}"` : '';
  return `<g class="series" data-series="${esc(s.name)}"><title>${esc(s.name)}</title><path d="${d}" fill="none" stroke="${color}" stroke-width="${width}"${op}${dash}/>${marks}</g>`;
}

function legend(series) {
  const items = series.map((s, i) => {
    const color = s.color || PALETTE[i % PALETTE.length];
    return `<span class="legend-item" data-series="${esc(s.name)}" title="click to hide or show"><i style="border-color:${color}${s.dash ? ';border-top-style:dashed' : ''}"></i>${esc(s.name)}</span>`;
  });
  return `<div class="legend">${items.join('')}</div>`;
}

function wrap(opts, f, series, extra) {
  const body = series.map((s, i) => seriesSVG(f, s, i, opts.yFmt, opts.xFmt)).join('');
  return `<figure class="chart" data-chart="${esc(opts.kind)}"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(opts.title)}">${f.parts.join('')}${extra || ''}${body}</svg>${legend(series)}</figure>`;
}

// percentileChart: series [{name, points: [[q, us], ...], marks: [{q, us, label}], color, dash}],
// limits [{q, us, ok, label}] drawn as threshold markers.
export function percentileChart(opts) {
  const series = opts.series.filter((s) => s.points.length);
  // The y range covers the data, and the thresholds within three decades of it; a threshold
  // further off (p(99) < 1ns) is pinned to the chart's edge rather than squash the curves.
  const data = series.flatMap((s) => s.points.map((p) => p[1])).filter((v) => v > 0);
  const dlo = data.length ? Math.min(...data) : 1;
  const dhi = data.length ? Math.max(...data) : 10;
  const near = (opts.limits || []).map((l) => l.us).filter((v) => v >= dlo / 1000 && v <= dhi * 1000);
  const pos = data.concat(near);
  const lo = pos.length ? 10 ** Math.floor(Math.log10(Math.min(...pos))) : 1;
  const hi = pos.length ? 10 ** Math.ceil(Math.log10(Math.max(...pos) * 1.0001)) : 10;
  // 99.9999% (x = 6) at least; further when a run has the samples to resolve it.
  const xMax = Math.max(6, Math.ceil(Math.max(0, ...series.flatMap((s) => s.points.map((p) => nines(p[0])))) - 1e-9));
  const xTicks = [0, Math.log10(2)].concat(Array.from({ length: xMax }, (_, i) => i + 1)).map((v) => ({ v, label: pctLabel(v) }));
  const yTicks = logTicks(lo, hi);
  const ys = { lo, hi, log: true, ticks: (yTicks.length > 9 ? yTicks.filter((v) => String(v)[0] === '1') : yTicks).map((v) => ({ v, label: usLabel(v) })) };
  const f = frame({ ...opts, xLabel: opts.xLabel || 'percentile', yLabel: opts.yLabel || 'latency' }, { lo: 0, hi: xMax, ticks: xTicks }, ys);
  const mapped = series.map((s) => ({
    ...s,
    points: s.points.map((p) => [nines(p[0]), p[1]]),
    marks: (s.marks || []).map((m) => ({ x: nines(m.q), y: m.us, label: m.label })),
  }));
  // A threshold is a short bar at its percentile and limit (green pass, red FAIL); labels
  // alternate above and below so neighbours do not overlap.
  const limits = (opts.limits || []).map((l, i) => {
    const x = f.sx(nines(l.q));
    const off = l.us < lo ? ' (below the scale)' : l.us > hi ? ' (above the scale)' : '';
    const y = f.sy(Math.min(Math.max(l.us, lo), hi));
    const cls = l.ok ? 'limit ok' : 'limit fail';
    let ty = i % 2 ? y + 15 : y - 6;
    if (ty < M.top + 12) ty = y + 15; // not over the title
    if (ty > H - M.bottom - 2) ty = y - 6;
    return `<g class="${cls}" data-limit="${esc(l.label)}"><title>${esc(`${l.label}: ${l.ok ? 'pass' : 'FAIL'}${off}`)}</title><line x1="${fmt(x - 12)}" x2="${fmt(x + 12)}" y1="${fmt(y)}" y2="${fmt(y)}"/><line x1="${fmt(x)}" x2="${fmt(x)}" y1="${fmt(y - 5)}" y2="${fmt(y + 5)}"/><text x="${fmt(x - 10)}" y="${fmt(ty)}">${esc(l.label + off)}</text></g>`;
  }).join('');
  return wrap({ ...opts, kind: 'percentile', yFmt: usLabel }, f, mapped, limits);
}

// timeChart: series [{name, points: [[seconds, value], ...]}], bands [{from, to, label}].
export function timeChart(opts) {
  const series = opts.series.filter((s) => s.points.length);
  const xsMax = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p[0])), ...(opts.bands || []).map((b) => b.to));
  const ysMax = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p[1]))) * 1.1;
  const xt = linTicks(xsMax);
  const yt = linTicks(ysMax);
  const f = frame(opts, { lo: 0, hi: xsMax, ticks: xt.map((v) => ({ v, label: `${v}s` })) },
    { lo: 0, hi: yt[yt.length - 1] >= ysMax ? yt[yt.length - 1] : ysMax, ticks: yt.map((v) => ({ v, label: opts.yFmt ? opts.yFmt(v) : String(v) })) });
  return wrap({ ...opts, kind: 'time', yFmt: opts.yFmt || String }, f, series);
}

// CSS for the charts (report.js embeds it).
export const CHART_CSS = `
figure.chart{margin:0;display:inline-block;vertical-align:top;background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:6px 8px 8px}
figure.chart svg{display:block;font:11px system-ui,-apple-system,'Segoe UI',sans-serif}
figure.chart .plot{fill:#fcfcfd;stroke:#ccc}
figure.chart .grid{stroke:#e9e9ee;stroke-width:1}
figure.chart .tick{fill:#555}
figure.chart .axis{fill:#333;font-size:12px}
figure.chart .title{fill:#111;font-size:13px;font-weight:600}
figure.chart .band rect{fill:#f0f0f0;opacity:.8}
figure.chart .band text{fill:#888;font-size:10px}
figure.chart .series.hidden{display:none}
figure.chart .limit line{stroke-width:2}
figure.chart .limit.ok line{stroke:#2a9d4b}
figure.chart .limit.fail line{stroke:#c62828}
figure.chart .limit text{font-size:10px;fill:#333}
.legend{font:12px system-ui,sans-serif;margin-top:4px;display:flex;flex-wrap:wrap;gap:4px 14px;max-width:640px}
.legend-item{cursor:pointer;user-select:none;white-space:nowrap}
.legend-item i{display:inline-block;width:18px;border-top:3px solid;margin-right:5px;vertical-align:middle}
.legend-item.off{opacity:.35}
`;
