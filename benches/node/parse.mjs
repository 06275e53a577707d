// V8's JSON.parse + Map on the same bytes as the Rust contenders (benches/peers):
// throughput over the watch stream, heap held per cached pod.
//
// node --expose-gc parse.mjs --watch watch-100000.jsonl --pods pods-50000.jsonl [--runs 7]
// Prints RESULT lines (tab-separated) for `cargo xtask bench`.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const runs = Number(opt('--runs', '7'));
const result = (table, row, cols) =>
  console.log(['RESULT', table, row, ...Object.entries(cols).map(([k, v]) => `${k}=${v}`)].join('\t'));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

// Each line is decoded to a string and parsed inside the timed loop, as a client
// reading a response body would; the file itself stays an off-heap Buffer.
function* lines(buf) {
  let start = 0;
  for (;;) {
    const end = buf.indexOf(10, start);
    if (end < 0) {
      if (start < buf.length) yield [start, buf.length];
      return;
    }
    if (end > start) yield [start, end];
    start = end + 1;
  }
}

function applyWatch(buf) {
  const map = new Map();
  let n = 0;
  for (const [s, e] of lines(buf)) {
    const ev = JSON.parse(buf.toString('utf8', s, e));
    const o = ev.object;
    if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
      map.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
      n++;
    } else if (ev.type === 'DELETED') {
      map.delete(`${o.metadata.namespace}/${o.metadata.name}`);
      n++;
    }
  }
  return [n, map.size];
}

const watchFile = opt('--watch');
if (watchFile) {
  const buf = readFileSync(watchFile);
  const events = [...lines(buf)].length;
  const times = [];
  let held = 0;
  for (let r = 0; r <= runs; r++) {
    const t = process.hrtime.bigint();
    const [, size] = applyWatch(buf);
    const s = Number(process.hrtime.bigint() - t) / 1e9;
    held = size;
    if (r > 0) times.push(s);
    console.error(`  round ${r} V8 JSON.parse + Map ${s.toFixed(3)} s`);
    globalThis.gc?.();
  }
  const m = median(times);
  result('throughput-node', 'V8 JSON.parse + Map (Node ' + process.version + ')', {
    'MB/s': (buf.length / 1e6 / m).toFixed(0),
    'events/s': (events / m).toFixed(0),
    'median ms': (m * 1e3).toFixed(0),
    'spread ms': `${(Math.min(...times) * 1e3).toFixed(0)}..${(Math.max(...times) * 1e3).toFixed(0)}`,
    'objects held': held,
  });
}

const podsFile = opt('--pods');
if (podsFile) {
  if (!globalThis.gc) throw new Error('run with node --expose-gc');
  const buf = readFileSync(podsFile);
  let raw = 0;
  for (const [s, e] of lines(buf)) raw += e - s;
  const settle = () => {
    for (let i = 0; i < 4; i++) globalThis.gc();
    return process.memoryUsage().heapUsed;
  };
  const before = settle();
  const map = new Map();
  for (const [s, e] of lines(buf)) {
    const o = JSON.parse(buf.toString('utf8', s, e));
    map.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
  }
  const after = settle();
  const bytes = after - before;
  result('memory-node', 'V8 JSON.parse + Map (Node ' + process.version + ', heapUsed after gc)', {
    'bytes/object': Math.round(bytes / map.size),
    'x raw JSON': (bytes / raw).toFixed(3),
    'MB held': (bytes / 1e6).toFixed(1),
    objects: map.size,
  });
}
