// Number and table formatting for the console and summary.txt: plain ASCII, no control
// characters, so CI logs stay readable.

// Microseconds as a short human duration: 85.3us, 1.24ms, 2.10s.
export function us(v) {
  if (v === undefined || v === null || Number.isNaN(v)) return '-';
  if (v < 10) return `${v.toFixed(2)}us`;
  if (v < 1000) return `${v.toFixed(1)}us`;
  if (v < 1e6) return `${(v / 1e3).toFixed(2)}ms`;
  return `${(v / 1e6).toFixed(2)}s`;
}

export function num(v, digits = 0) {
  if (v === undefined || v === null || Number.isNaN(v)) return '-';
  return v.toFixed(digits);
}

export function bytes(v) {
  if (!v) return '0B';
  const units = ['B', 'KB', 'MB', 'GB'];
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(i ? 1 : 0)}${units[i]}`;
}

// Right-aligned text table; the first row is the header.
export function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows
    .map((r) => r.map((cell, c) => (c === 0 ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c]))).join('  '))
    .join('\n');
}
