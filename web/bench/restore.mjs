// A reload of a `<kubelive-table shared>` kept in IndexedDB with no other tab open: the
// worker starts anew and restores the view from its saved rows. One page syncs PODS
// pods (10 changes/s) and is closed; once kubelive's SharedWorker has ended with it,
// each of RUNS new pages is timed from navigation to its first row drawn, with the
// LISTs the sim served meanwhile (a restore lists nothing; its first request is a
// WATCH from the kept version). The pages reach kubectl proxy through a small proxy
// here that answers the kube-system namespace (the sim serves none): the cluster
// identity a kept view is tied to. Each run logs when the first row was drawn (the
// first screen the page kept, read by the page itself) and when the worker's restored
// rows came (the watcher's first status with `restored`). PRELOAD=1: the page has the
// npm README's preloads. TARGET=app: the app's own view instead (`#r=v1/pods`, its
// engine on the page, kept and restored there; its first row drawn is the first screen
// it kept, then its restored rows take their place). TRACE=1: the first run's longest tasks on the
// page's and the worker's threads (a browser-wide trace), where the time goes.
//
//   cd web && SIM_BIN=../target/release/kubelive-sim DIST=../dist PODS=100000 node bench/restore.mjs
import http from 'node:http';
import { launch, until, simPodMetrics } from '../tests/lib.mjs';
import { startCluster, sleep } from './cluster.mjs';
const PODS = Number(process.env.PODS || 100000);
const log = (...a) => console.log(...a);
const cluster = await startCluster({ simBin: process.env.SIM_BIN, dist: process.env.DIST || '../dist', objects: PODS, churn: 10, log });
const upstream = new URL(cluster.base);
const front = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/api/v1/namespaces/kube-system') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'kube-system', uid: 'aaaaaaaa-0000-4000-8000-000000000001' } }));
    return;
  }
  const up = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (r) => { res.writeHead(r.statusCode, r.headers); r.pipe(res); });
  up.on('error', () => res.destroy()); res.on('close', () => up.destroy()); req.pipe(up);
});
await new Promise((r) => front.listen(0, '127.0.0.1', r));
const ORIGIN = `http://127.0.0.1:${front.address().port}`;
const PRELOADS = `
<link rel="modulepreload" href="/ui/npm/component.js">
<link rel="modulepreload" href="/ui/npm/index.js">
<link rel="modulepreload" href="/ui/npm/kubelive_watcher.js">
<link rel="preload" href="/ui/npm/kubelive_watcher_bg.wasm" as="fetch" crossorigin>`;
const html = `<!doctype html><meta charset="utf-8"><title>r</title>${process.env.PRELOAD ? PRELOADS : ''}
<script>window.restoredAt = null; document.addEventListener('kubelive-status', (e) => { if (e.detail.restored && window.restoredAt === null) window.restoredAt = performance.now(); });
window.firstRowAt = null; const look = () => { const row = document.getElementById('t')?.shadowRoot?.querySelector('[part~=row]'); if (row) window.firstRowAt = performance.now(); else requestAnimationFrame(look); }; requestAnimationFrame(look);</script>
<kubelive-table id="t" resource="pods" shared></kubelive-table>
<script type="module">await import('/ui/npm/component.js');</script>`;
const APP = process.env.TARGET === 'app';
const browser = await launch();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const url = APP ? `${ORIGIN}/ui/#r=v1/pods` : `${ORIGIN}/ui/restore.html`;
  if (APP) {
    // The app's first row (its kept first screen's), then its restored view's rows
    // in their place.
    await context.addInitScript(() => {
      window.firstRowAt = null;
      window.restoredAt = null;
      const look = () => {
        const rows = document.querySelector('.row:not(.gone)');
        if (rows && window.firstRowAt === null) window.firstRowAt = performance.now();
        if (rows && document.querySelector('.app')?.dataset.firstScreen === undefined) window.restoredAt = performance.now();
        else requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
  } else {
    await context.route(url, (r) => r.fulfill({ contentType: 'text/html', body: html }));
  }
  let p = await context.newPage();
  await p.goto(url);
  await until('synced', () => p.evaluate((app) => (app
    ? document.querySelector('#status[data-synced="true"]') !== null
    : document.getElementById('t').watcher?.status().synced), APP), 120000, 100);
  await sleep(3000);
  await p.close();
  await sleep(8000);
  for (let i = 0; i < Number(process.env.RUNS || 3); i++) {
    const before = await simPodMetrics(cluster.base);
    p = await context.newPage();
    if (i === 0 && process.env.TRACE) await browser.startTracing(p, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'v8.wasm', 'IndexedDB', 'blink.worker'] });
    await p.goto(url);
    await until('first row', () => p.evaluate(() => window.firstRowAt), 60000, 20);
    const at = await p.evaluate(() => window.firstRowAt);
    const restoredAt = await until(APP ? 'the restored rows' : 'the worker\'s restored rows', () => p.evaluate(() => window.restoredAt), 60000, 20);
    const lists = (await simPodMetrics(cluster.base)).lists - before.lists;
    // Where the page's own path went: its wasm fetched, then the identity read (the
    // kept screen is read with it).
    const marks = await p.evaluate(() => performance.getEntriesByType('resource')
      .filter((r) => /_bg\.wasm|kube-system/.test(r.name))
      .map((r) => `${r.name.includes('kube-system') ? 'identity GET' : 'wasm'} ${r.startTime.toFixed(0)}-${r.responseEnd.toFixed(0)}`));
    const worker = ` ${APP ? 'the engine\'s' : 'the worker\'s'} restored rows at ${restoredAt.toFixed(0)} ms;`;
    log(`restore ${i}: first row ${at.toFixed(0)} ms after navigation;${worker} ${lists} LIST (the page: ${marks.join(', ')} ms)`);
    if (i === 0 && process.env.TRACE) {
      const { traceEvents } = JSON.parse((await browser.stopTracing()).toString());
      const names = new Map(traceEvents.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
      const thread = (e) => names.get(`${e.pid}:${e.tid}`) || '';
      const tasks = traceEvents.filter((e) => e.ph === 'X' && e.dur > 10000 && /^(SharedWorker thread|CrRendererMain)$/.test(thread(e)) && !/RunTask/.test(e.name));
      const t0 = Math.min(...tasks.map((e) => e.ts));
      log('  tasks over 10 ms (ms from the first, duration, thread, what):');
      for (const e of tasks.sort((a, b) => a.ts - b.ts)) log(`  ${((e.ts - t0) / 1000).toFixed(0).padStart(6)} ${(e.dur / 1000).toFixed(1).padStart(7)}  ${thread(e)}  ${e.name} ${e.args?.data?.functionName ?? ''}`);
    }
    await p.close();
    await sleep(8000);
  }
} finally { await browser.close(); cluster.stop(); front.close(); }
