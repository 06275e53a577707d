// The browser bench: kubelive-core in wasm vs JSON.parse + Map, same bytes, same page.
// Results go to the table and to `window.__bench` (read by web/bench/run.mjs).
import init, { BenchStream } from '../kubelive_web.js';

const params = new URLSearchParams(location.search);
const streamUrl = params.get('stream') || './watch.jsonl';
const runs = Math.max(1, Number(params.get('runs') || 5));
const chunk = Math.max(1, Number(params.get('chunk') || 65536));
const state = document.getElementById('state');
const say = (s) => { state.textContent = s; };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const pause = () => new Promise((r) => setTimeout(r, 50));

/** JSON.parse of each line (decoded to a string in the loop) + a Map keyed ns/name. */
function jsonParseApply(bytes) {
  const decoder = new TextDecoder();
  const map = new Map();
  let changes = 0;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(10, start);
    if (end < 0) end = bytes.length;
    if (end > start) {
      const ev = JSON.parse(decoder.decode(bytes.subarray(start, end)));
      const o = ev.object;
      if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
        map.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
        changes++;
      } else if (ev.type === 'DELETED') {
        map.delete(`${o.metadata.namespace}/${o.metadata.name}`);
        changes++;
      }
    }
    start = end + 1;
  }
  return { changes, held: map.size };
}

async function main() {
  say('loading the wasm module…');
  await init();
  say(`fetching ${streamUrl}…`);
  const response = await fetch(streamUrl);
  if (!response.ok) throw new Error(`GET ${streamUrl}: ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const stream = new BenchStream(bytes);
  const events = bytes.reduce((n, b) => n + (b === 10), 0);
  const contenders = [
    {
      name: 'kubelive-core (wasm) Engine',
      run: () => ({ changes: stream.decodeApply(chunk), held: stream.held }),
    },
    { name: 'JSON.parse + Map (V8)', run: () => jsonParseApply(bytes) },
  ];
  const times = contenders.map(() => []);
  const outcome = contenders.map(() => null);
  // A warm-up round, then `runs` interleaved rounds.
  for (let round = 0; round <= runs; round++) {
    for (const [i, c] of contenders.entries()) {
      say(`${round === 0 ? 'warm-up' : `run ${round}/${runs}`}: ${c.name}…`);
      await pause();
      const t0 = performance.now();
      const out = c.run();
      const ms = performance.now() - t0;
      if (round > 0) times[i].push(ms);
      outcome[i] = out;
    }
  }
  const rows = contenders.map((c, i) => {
    const ms = median(times[i]);
    return {
      name: c.name,
      ms,
      mbps: bytes.length / 1e6 / (ms / 1e3),
      eventsPerSec: events / (ms / 1e3),
      runs: times[i],
      changes: outcome[i].changes,
      held: outcome[i].held,
    };
  });
  if (rows[0].changes !== rows[1].changes || rows[0].held !== rows[1].held) {
    throw new Error(`the contenders disagree: ${JSON.stringify(rows.map((r) => [r.changes, r.held]))}`);
  }
  const tbody = document.querySelector('#results tbody');
  for (const r of rows) {
    const tr = document.createElement('tr');
    for (const v of [r.name, r.ms.toFixed(0), r.mbps.toFixed(0), Math.round(r.eventsPerSec).toLocaleString('en'),
      r.runs.map((t) => t.toFixed(0)).join(' ')]) {
      const td = document.createElement('td');
      td.textContent = v;
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }
  const result = { bytes: bytes.length, events, chunk, runs, rows, ratio: rows[1].ms / rows[0].ms, userAgent: navigator.userAgent };
  say(`done: ${(bytes.length / 1e6).toFixed(1)} MB, ${events} events; kubelive ${result.ratio.toFixed(2)}x JSON.parse + Map`);
  window.__bench = result;
}

main().catch((e) => {
  say(`failed: ${e}`);
  console.error(e);
  window.__bench = { error: String(e) };
});
