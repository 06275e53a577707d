// A reload of a shared `<kubelive-table>` while another tab keeps its view: how long
// from the reload to its first rows on screen, and where the time goes (the page's
// scripts, the wasm, the worker's first answer), against a build before (BEFORE, a
// dist directory) in turns in the same run, each against a fresh sim.
//
//   cargo xtask dist && cargo build --release -p kubelive-sim
//   cd web && SIM_BIN=../target/release/kubelive-sim DIST=../dist BEFORE=DIR PODS=100000 node bench/reload.mjs
//
// PODS (default 100000), RELOADS (a run, default 4), ROUNDS (default 2); PRELOAD=1: the
// page preloads the modules and the wasm (README's advice to embedders).
import { launch, until } from '../tests/lib.mjs';
import { startCluster } from './cluster.mjs';

const PODS = Number(process.env.PODS || 100000);
const RELOADS = Number(process.env.RELOADS || 4);
const ROUNDS = Number(process.env.ROUNDS || 2);
const log = (...a) => console.log(...a);
/** What README suggests an embedding page put in its head (PRELOAD=1): the modules
 * and the wasm fetched at once, not one after the other. */
const PRELOADS = `
<link rel="modulepreload" href="/ui/npm/component.js">
<link rel="modulepreload" href="/ui/npm/index.js">
<link rel="modulepreload" href="/ui/npm/kubelive_watcher.js">
<link rel="preload" href="/ui/npm/kubelive_watcher_bg.wasm" as="fetch" crossorigin>`;
const html = `<!doctype html><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; worker-src 'self'">
<title>reload bench</title>
<style>kubelive-table { display: block; height: 400px; }</style>${process.env.PRELOAD ? PRELOADS : ''}
<kubelive-table id="a" resource="pods" shared></kubelive-table>
<script type="module">await import('/ui/npm/component.js');</script>`;

/** In the page, before its scripts: when the wasm was instantiated, the worker made,
 * its first message heard and the first row drawn (performance.now()). */
function probe() {
  const t = {};
  window.__t = t;
  for (const name of ['instantiate', 'instantiateStreaming']) {
    const f = WebAssembly[name];
    WebAssembly[name] = async (...a) => {
      const r = await f.apply(WebAssembly, a);
      t.wasm ??= performance.now();
      return r;
    };
  }
  const SW = window.SharedWorker;
  window.SharedWorker = function (...a) {
    const w = new SW(...a);
    t.worker ??= performance.now();
    w.port.addEventListener('message', () => { t.answer ??= performance.now(); });
    return w;
  };
  const tick = () => {
    if (document.getElementById('a')?.shadowRoot?.querySelector('[part~=row]')) t.rows = performance.now();
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

async function run(dist, label) {
  const cluster = await startCluster({ simBin: process.env.SIM_BIN, dist, objects: PODS, churn: 10, log: () => {} });
  const browser = await launch();
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const url = `${cluster.base}/ui/bench-reload.html`;
    await context.route(url, (r) => r.fulfill({ contentType: 'text/html', body: html }));
    const synced = (p) => p.evaluate(() => {
      const el = document.getElementById('a');
      return el?.watcher?.status().synced && !!el.shadowRoot?.querySelector('[part~=row]');
    });
    const other = await context.newPage();
    await other.goto(url);
    await until('the first tab synced', () => synced(other), 600000, 200);
    const p = await context.newPage();
    await p.addInitScript(probe);
    await p.goto(url);
    await until('the second tab synced', () => synced(p), 600000, 50);
    const rows = [];
    for (let i = 0; i < RELOADS; i++) {
      await p.reload();
      await until('the reloaded tab synced', async () => await synced(p) && p.evaluate(() => window.__t.rows !== undefined), 600000, 20);
      const t = await p.evaluate(() => window.__t);
      const r = (x) => (x == null ? '-' : Math.round(x));
      log(`${label}: reload ${i}: wasm ${r(t.wasm)} ms, worker ${r(t.worker)}, its first answer ${r(t.answer)}, first row drawn ${r(t.rows)}`);
      rows.push(t.rows);
    }
    return rows;
  } finally {
    await browser.close();
    cluster.stop();
  }
}

const builds = [['now', process.env.DIST || '../dist']];
if (process.env.BEFORE) builds.unshift(['before', process.env.BEFORE]);
const all = Object.fromEntries(builds.map(([l]) => [l, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [label, dist] of builds) all[label].push(...await run(dist, label));
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const [label, rows] of Object.entries(all)) {
  log(`${label}: first row drawn ${Math.round(Math.min(...rows))}-${Math.round(Math.max(...rows))} ms after the reload began, median ${Math.round(median(rows))} (${rows.length} reloads)`);
}
