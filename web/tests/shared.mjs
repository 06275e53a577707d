// The shared engine (`<kubelive-table shared>`, the Watcher's `shared: true`): tabs of
// one origin that show the same view share one engine in kubelive's SharedWorker, so
// the cluster pays one LIST and one watch however many tabs show it, counted on the
// sim's /metrics:
// * two pages of one browser context on the same pods view: one initial LIST and one
//   open watch between them, and both show the server's rows;
// * a reload within the grace re-attaches to the running engine: no LIST (while another
//   page keeps the SharedWorker alive);
// * a table on another view (a label selector) gets its own engine;
// * a view whose last page closes ends its watch at once while another page keeps the
//   worker, its engine kept for the grace (5 s): a page back within it lists nothing;
//   closing every page stops every watch (the open-watch gauge drops to 0);
// * a page without SharedWorker runs the engine in a dedicated worker, and works.
// The pages' CSP allows workers from the origin only (`worker-src 'self'`).
import { launch, until, check, done, serverKeys, simPodMetrics } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';

const page = (extra, tables) => `<!doctype html><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; worker-src 'self'">
<title>shared engine tests</title>
<script>
  window.violations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));
  ${extra}
</script>
${tables}
<script type="module">await import('/ui/npm/component.js');</script>`;

const PODS = '<kubelive-table id="t" resource="pods" shared></kubelive-table>';

/** LISTs of pods this script made itself (the truth it compares with), not the pages. */
let ownLists = 0;

/** The server's pod keys (one LIST, counted as the script's own). */
async function serverPods() {
  ownLists += 1;
  return (await serverKeys(BASE, '/api/v1/pods')).keys;
}

/** The sim's pods metrics, less the LISTs this script made itself. */
async function metrics() {
  const m = await simPodMetrics(BASE);
  m.initialLists -= ownLists;
  m.lists -= ownLists;
  return m;
}

/** Opens `html` at a page of the proxy's origin in `context`. */
async function open(context, name, html, problems) {
  const p = await context.newPage();
  p.on('pageerror', (e) => problems.push(`${name}: ${e}`));
  p.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${name}: console: ${m.text()}`);
  });
  const url = `${BASE}/ui/shared-${name}.html`;
  await p.route(url, (route) => route.fulfill({ contentType: 'text/html', body: html }));
  await p.goto(url);
  return p;
}

/** Element `id`'s rows (every one, in the view's order) once its watcher is synced. */
const rows = (p, id = 't') => p.evaluate((id) => {
  const el = document.getElementById(id);
  const w = el?.watcher;
  if (!w || !w.status().synced) return null;
  return el.view.window(0, 1000).rows.map((r) => r.key);
}, id);

/** Waits until both pages show the server's pods (in one moment of the churn). */
async function showServer(pages, what) {
  return until(what, async () => {
    const server = await serverPods();
    const shown = await Promise.all(pages.map((p) => rows(p)));
    return shown.every((s) => s && JSON.stringify([...s].sort()) === JSON.stringify(server)) && server.length;
  }, 60000, 250);
}

const browser = await launch();
const problems = [];

// Two tabs of one browser context on the same view.
const context = await browser.newContext();
const before = await metrics();
const one = await open(context, 'one', page('', PODS), problems);
await until('page one synced', () => rows(one), 30000);
const two = await open(context, 'two', page('', PODS), problems);
await until('page two synced', () => rows(two), 30000);
const count = await showServer([one, two], 'both pages to show the server\'s pods');
check(count > 0, `both pages show the server's ${count} pods`);
let now = await metrics();
check(now.initialLists - before.initialLists === 1,
  `two tabs on one view: ${now.initialLists - before.initialLists} initial LIST (${now.lists - before.lists} LIST request(s))`);
check(now.openWatches === 1, `two tabs on one view: ${now.openWatches} open watch`);
const sameStatus = await Promise.all([one, two].map((p) => p.evaluate(() => {
  const s = document.getElementById('t').watcher.status();
  return `${s.synced} ${s.phase}`;
})));
check(sameStatus.every((s) => s === 'true watching'), `both watchers say synced and watching (${sameStatus})`);

// Each viewer sorts its own way: page two sorts by name descending, page one keeps the
// rows' own order (namespace, name). Same rows, two orders, one engine.
await two.evaluate(() => document.getElementById('t').view.set({ sort: '-name' }));
const sortOf = (p) => p.evaluate(() => {
  const w = document.getElementById('t').view.window(0, 1000);
  return { sort: w.sort, keys: w.rows.map((r) => r.key) };
});
const orders = await until('page two sorted by name, descending', async () => {
  const [a, b] = [await sortOf(one), await sortOf(two)];
  const same = JSON.stringify([...a.keys].sort()) === JSON.stringify([...b.keys].sort());
  return b.sort?.column === 'name' && b.sort.descending && same && { a, b };
}, 15000, 250);
check(orders.a.sort === null && JSON.stringify(orders.a.keys) !== JSON.stringify(orders.b.keys),
  `a viewer's sort is its own: page two by ${JSON.stringify(orders.b.sort)}, page one by ${JSON.stringify(orders.a.sort)}`);

// A row click opens the object (a GET from the page), before any object came to it.
const detail = await one.evaluate(async () => {
  const root = document.getElementById('t').shadowRoot;
  const body = () => root.querySelector('[part~=detail-body]');
  const row = root.querySelector('[part~=row]');
  for (let i = 0; i < 100 && !body()?.textContent.startsWith('{'); i++) {
    if (i % 20 === 0) row.querySelector('[part~=cell]:nth-child(2)').click();
    await new Promise((r) => setTimeout(r, 100));
  }
  const text = body()?.textContent ?? '';
  const object = text.startsWith('{') ? JSON.parse(text) : null;
  const shown = { rowKey: row.dataset.key, name: object && `${object.metadata.namespace}/${object.metadata.name}` };
  root.querySelector('[part~=detail-close]')?.click();
  return shown;
});
check(detail.name === detail.rowKey, `a row click shows the object (${detail.name}, row ${detail.rowKey})`);

// The Watcher API in shared mode: snapshot() and get() are fed from the worker.
const snapshot = await until('page one\'s snapshot()', () => one.evaluate(() => {
  const w = document.getElementById('t').watcher;
  const s = w.snapshot();
  if (!s.length) return null;
  const first = s[0];
  const got = w.get(first.metadata.namespace, first.metadata.name);
  return { length: s.length, size: w.size, cells: Array.isArray(first.cells), same: got === first };
}), 15000);
check(snapshot.length === snapshot.size && snapshot.cells && snapshot.same,
  `snapshot() holds every row (${snapshot.length}, size ${snapshot.size}) and get() finds them`);

// Another view (a label selector): its own engine, its own watch.
const other = await open(context, 'other', page('',
  '<kubelive-table id="t" resource="pods" label-selector="tier=backend" shared></kubelive-table>'), problems);
await until('the labelled view synced', () => rows(other), 30000);
now = await metrics();
check(now.openWatches === 2, `a second view has its own watch: ${now.openWatches} open watches`);

// A reload within the grace re-attaches to the running engine: no LIST. (The labelled
// view's page keeps the worker alive: a browser ends a SharedWorker with its last page.)
await two.close();
const beforeReload = await metrics();
// What the reloaded page says to the worker, and when it first hears back.
await one.addInitScript(() => {
  window.__said = [];
  const SW = window.SharedWorker;
  window.SharedWorker = function (...a) {
    const w = new SW(...a);
    const post = w.port.postMessage.bind(w.port);
    w.port.postMessage = (m) => { window.__said.push(m?.t === 'window' ? `window ${m.first}+${m.count}` : m?.t); post(m); };
    w.port.addEventListener('message', () => { if (!window.__said.includes('heard')) window.__said.push('heard'); });
    return w;
  };
});
await one.reload();
await until('page one synced after its reload', () => rows(one), 30000);
const said = await one.evaluate(() => window.__said);
const firstWindow = said.find((m) => m?.startsWith('window'));
check(said.indexOf(firstWindow) < said.indexOf('heard') && !firstWindow.endsWith('+0') && !said.includes('window 0+0'),
  `a reloading page asks for its first rows with its view, before the worker first answers, and never for none (${said.slice(0, 6).join(', ')})`);
await showServer([one], 'the reloaded page to show the server\'s pods');
now = await metrics();
check(now.initialLists === beforeReload.initialLists,
  `a reload re-attaches to the running engine: ${now.initialLists - beforeReload.initialLists} LIST`);

// The pods view's last page closes while another page keeps the worker: its watch
// ends at once, its engine (its rows, its version) is kept for the grace, and the
// other view's goes on. A page that shows the view within the grace gets the rows
// and a watch from their version: no LIST.
await one.close();
let closed = Date.now();
await until('the pods view\'s watch to stop', async () => (await metrics()).openWatches === 1, 30000, 250);
const endedAfter = (Date.now() - closed) / 1000;
check(endedAfter < 3, `the pods view's watch ended ${endedAfter.toFixed(1)} s after its last page closed, the labelled view's watch goes on`);
check(await rows(other) !== null, 'the labelled view is still synced');
const beforeBack = await metrics();
const back = await open(context, 'back', page('', PODS), problems);
await showServer([back], 'a page back within the grace to show the server\'s pods');
now = await metrics();
check(Date.now() - closed < 5000 + 3000 && now.initialLists === beforeBack.initialLists && now.watches > beforeBack.watches,
  `a page back within the grace lists nothing and watches on: ${now.initialLists - beforeBack.initialLists} LIST, ${now.watches - beforeBack.watches} WATCH`);
await back.close();
await until('the pods view\'s watch to stop again', async () => (await metrics()).openWatches === 1, 30000, 250);

// Closing every page stops every watch (a browser ends a SharedWorker with its last page).
await other.close();
closed = Date.now();
await until('the open watches to drop to 0', async () => (await metrics()).openWatches === 0, 30000, 250);
check(true, `every tab closed: the watches stop (after ${((Date.now() - closed) / 1000).toFixed(1)} s)`);
await context.close();

// No SharedWorker: a dedicated worker per page.
const plain = await browser.newContext();
const beforePlain = await metrics();
const lone = await open(plain, 'lone', page('delete window.SharedWorker;', PODS), problems);
await until('the page without SharedWorker synced', () => rows(lone), 30000);
await showServer([lone], 'the page without SharedWorker to show the server\'s pods');
check(await lone.evaluate(() => typeof SharedWorker === 'undefined'), 'that page has no SharedWorker');
const workers = lone.workers().map((w) => w.url());
check(workers.some((u) => u.endsWith('/ui/npm/worker.js')), `its engine runs in a dedicated worker (${workers})`);
now = await metrics();
check(now.initialLists - beforePlain.initialLists === 1 && now.openWatches === 1,
  `the dedicated worker lists once and watches (${now.initialLists - beforePlain.initialLists} LIST, ${now.openWatches} watch)`);
const violations = await lone.evaluate(() => window.violations);
check(violations.length === 0, `no CSP violation with worker-src 'self' (${violations})`);
await plain.close();

check(problems.length === 0, `no page errors (${problems.join('; ')})`);
await browser.close();
done('shared');
