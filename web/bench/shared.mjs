// What several viewers of one view cost the apiserver and the pages, shared against
// not: three tabs of one browser context showing the same pods view, the first with two
// <kubelive-table>s (four tables in all), once with `shared` (one engine in kubelive's
// SharedWorker) and once without (an engine per table on each page's main thread),
// each against a fresh sim of the same size behind `kubectl proxy --www DIST`.
// Per mode: LIST requests and initial lists, WATCH requests and open watches on the
// sim's /metrics once every table is synced; navigation to the last table synced; the
// main thread's task time of each page (CDP Performance.getMetrics TaskDuration) from
// navigation to synced; then a reload of the second tab: LISTs it made and the time to
// its rows on screen.
//
//   cargo xtask dist && cargo build --release -p kubelive-sim
//   cd web && SIM_BIN=../target/release/kubelive-sim DIST=../dist PODS=100000 node bench/shared.mjs
//
// PODS (default 100000), CHURN (changes/s, default 10), MODES (default shared,own).
import { launch, until, simPodMetrics } from '../tests/lib.mjs';
import { startCluster } from './cluster.mjs';

const PODS = Number(process.env.PODS || 100000);
const CHURN = Number(process.env.CHURN || 10);
const MODES = (process.env.MODES || 'shared,own').split(',');
const DIST = process.env.DIST || '../dist';
const log = (...a) => console.log(...a);

const html = (tables) => `<!doctype html><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; worker-src 'self'">
<title>shared bench</title>
<style>kubelive-table { display: block; height: 400px; }</style>
${tables}
<script type="module">await import('/ui/npm/component.js');</script>`;

const table = (id, shared) => `<kubelive-table id="${id}" resource="pods"${shared ? ' shared' : ''}></kubelive-table>`;

/** Every table of the page synced and showing rows. */
const synced = (p) => p.evaluate(() => {
  const all = [...document.querySelectorAll('kubelive-table')];
  return all.length > 0 && all.every((el) => el.watcher?.status().synced
    && el.shadowRoot?.querySelector('[part~=row]'));
});

async function taskSeconds(cdp) {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  return list.find((m) => m.name === 'TaskDuration')?.value ?? NaN;
}

async function run(mode) {
  const shared = mode === 'shared';
  const cluster = await startCluster({ simBin: process.env.SIM_BIN, dist: DIST, objects: PODS, churn: CHURN, log });
  const browser = await launch();
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const tabs = [];
    const t0 = Date.now();
    const before = await simPodMetrics(cluster.base);
    for (const [i, tables] of [[table('a', shared), table('b', shared)], [table('a', shared)], [table('a', shared)]].entries()) {
      const p = await context.newPage();
      const cdp = await context.newCDPSession(p);
      await cdp.send('Performance.enable');
      const url = `${cluster.base}/ui/bench-shared-${i}.html`;
      await p.route(url, (r) => r.fulfill({ contentType: 'text/html', body: html(tables.join('\n')) }));
      await p.goto(url);
      tabs.push({ p, cdp });
    }
    await until('every table synced', async () => (await Promise.all(tabs.map((t) => synced(t.p)))).every(Boolean), 600000, 200);
    const syncedMs = Date.now() - t0;
    const tasks = await Promise.all(tabs.map((t) => taskSeconds(t.cdp)));
    const after = await simPodMetrics(cluster.base);
    log(`${mode}: ${PODS} pods, 3 tabs, 4 tables: LIST requests ${after.lists - before.lists}, initial lists ${after.initialLists - before.initialLists}, WATCH requests ${after.watches - before.watches}, open watches ${after.openWatches}; every table synced ${(syncedMs / 1000).toFixed(2)} s after the first navigation; main-thread task time per tab ${tasks.map((s) => s.toFixed(2)).join(', ')} s`);

    // A reload of the second tab (the others stay).
    const beforeReload = await simPodMetrics(cluster.base);
    const t1 = Date.now();
    await tabs[1].p.reload();
    await until('the reloaded tab synced', () => synced(tabs[1].p), 600000, 50);
    const reloadMs = Date.now() - t1;
    const afterReload = await simPodMetrics(cluster.base);
    log(`${mode}: reload of tab 2: rows on screen and synced ${reloadMs} ms after the reload began; LIST requests ${afterReload.lists - beforeReload.lists}, WATCH requests ${afterReload.watches - beforeReload.watches}`);
    await context.close();
  } finally {
    await browser.close();
    cluster.stop();
  }
}

for (const mode of MODES) await run(mode);
