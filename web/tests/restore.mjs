// Persisted views (the Watcher's `persist`, on by default for a shared table such as
// `<kubelive-table shared>`): the rows a view showed are kept in IndexedDB with their
// resourceVersion, so that a reload shows them at once and watches from that version
// instead of listing again. Against the sim through kubectl proxy, counted on the
// sim's /metrics and on the pods requests the pages make:
// * a reload of a synced page: rows on screen, 0 LIST, then current;
// * every page closed (the worker ends with the last one), a new page: the kept rows
//   at once (phase `restored`), and its first pods request is a WATCH from the kept
//   version, no LIST; the view is then the server's;
// * kept longer than the sim's watch cache window: the watch gets a 410, the view is
//   listed again (one LIST) and the pods deleted meanwhile leave it;
// * closing every page stops the watch;
// * another cluster at the same URL (the kube-system namespace's uid changed): the
//   kept view is dropped, not restored;
// * `persist: false`, and `<kubelive-table shared persist="false">`: nothing is written
//   to IndexedDB;
// * a restoring page's first status is `restored` (no `listing` while the kept view is
//   read), a page's own engine's too;
// * an identity read failing past its deadline: the view starts unkept, and is kept
//   once the identity is read;
// * a hung identity read (the kube-system namespace never answers) holds the first
//   request no longer than its 2 s deadline: the watcher lists, keeps nothing;
// * the table's first screen is kept beside the view: a new page draws it, marked
//   restored, while kubelive's worker cannot even start (its script held here); on
//   another cluster, nothing is drawn before the worker lists;
// * the app keeps its first screen too: a reload draws it, marked kept, while its
//   discovery is held here, then its engine's restored rows take its place (no LIST);
//   on another cluster, nothing is drawn before discovery.
// The pages reach the API through a small proxy in this script, in front of kubectl
// proxy: it logs the pods requests and answers the kube-system namespace (which the
// sim does not serve) with a uid this script chooses, the cluster identity kept
// views are tied to.
// Figures (logged, not asserted): the time from a reload to the first row on screen,
// and the LIST requests it cost.
import http from 'node:http';
import { launch, until, check, done, getJson, simPodMetrics } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
/** The sim's watch cache window (s): a view kept longer gets a 410 on resume. */
const WINDOW_S = Number(process.env.WATCH_CACHE_WINDOW || 30);

// The pages' origin: everything goes to kubectl proxy but the kube-system namespace.
const upstream = new URL(BASE);
let clusterUid = 'aaaaaaaa-0000-4000-8000-000000000001';
/** The kube-system namespace read never answered (a hung identity read). */
let hangIdentity = false;
/** Until this time (ms), the kube-system namespace read fails with a 503. */
let failIdentityUntil = 0;
/** The pages' pods requests: { at, list, watch, rv }. */
const podRequests = [];
/** While set, the app's discovery (GET /api, /apis) is held until this promise resolves. */
let discoveryHeld = null;
/** While set, the worker's script is held until this promise resolves. */
let workerHeld = null;
/** Holds kubelive's worker script: the page cannot start its worker. Returns the release. */
function holdWorker() {
  let release;
  workerHeld = new Promise((r) => { release = r; });
  return () => {
    workerHeld = null;
    release();
  };
}
const front = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  const workerScript = url.pathname === '/ui/npm/worker.js';
  if (workerScript && workerHeld) await workerHeld;
  if ((url.pathname === '/api' || url.pathname === '/apis') && discoveryHeld) await discoveryHeld;
  if (url.pathname === '/api/v1/pods') {
    const watch = ['1', 'true'].includes(url.searchParams.get('watch'));
    podRequests.push({ at: Date.now(), watch, list: !watch, rv: url.searchParams.get('resourceVersion') });
  }
  if (req.method === 'GET' && url.pathname === '/api/v1/namespaces/kube-system') {
    if (hangIdentity) return;
    if (Date.now() < failIdentityUntil) {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html><body>503 Service Unavailable</body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'kube-system', uid: clusterUid } }));
    return;
  }
  const up = http.request({
    host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers,
  }, (r) => {
    // Never cached: each page's worker asks for it here, where it can be held.
    res.writeHead(r.statusCode, workerScript ? { ...r.headers, 'cache-control': 'no-store' } : r.headers);
    r.pipe(res);
  });
  up.on('error', () => res.destroy());
  res.on('close', () => up.destroy());
  req.pipe(up);
});
await new Promise((r) => front.listen(0, '127.0.0.1', r));
const ORIGIN = `http://127.0.0.1:${front.address().port}`;

const page = (extra, body) => `<!doctype html><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; worker-src 'self'">
<title>persisted views tests</title>
<script>
  // Every status the element told, and when its first row was drawn (ms from the
  // navigation's start).
  window.statuses = [];
  document.addEventListener('kubelive-status', (e) => window.statuses.push({
    phase: e.detail.phase, restored: e.detail.restored, synced: e.detail.synced,
    objects: e.detail.objects, rv: e.detail.resourceVersion, at: performance.now(),
  }));
  window.firstRowAt = null;
  const look = () => {
    const row = document.getElementById('t')?.shadowRoot?.querySelector('[part~=row]');
    if (row) window.firstRowAt = performance.now();
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
  ${extra}
</script>
${body}`;

const TABLE = `<kubelive-table id="t" resource="pods" shared></kubelive-table>
<script type="module">await import('/ui/npm/component.js');</script>`;

/** LISTs of pods this script made itself, not the pages. */
let ownLists = 0;

/** The server's pod keys (at version `rv`, else now). */
async function serverPods(rv) {
  ownLists += 1;
  const at = rv ? `?resourceVersion=${rv}&resourceVersionMatch=Exact` : '';
  const list = await getJson(`${BASE}/api/v1/pods${at}`);
  return list.items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();
}

/** The sim's pods metrics, less the script's own LISTs. */
async function metrics() {
  const m = await simPodMetrics(BASE);
  m.lists -= ownLists;
  return m;
}

async function open(context, name, html, problems) {
  const p = await context.newPage();
  p.on('pageerror', (e) => problems.push(`${name}: ${e}`));
  p.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${name}: console: ${m.text()}`);
  });
  const url = `${ORIGIN}/ui/restore-${name}.html`;
  await p.route(url, (route) => route.fulfill({ contentType: 'text/html', body: html }));
  await p.goto(url);
  return p;
}

/**
 * The element's watcher's rows (sorted keys) and the version its status holds, once
 * synced (read together: the worker tells a batch's changes before its status). Its
 * snapshot() has every row sent to the page: after the timings.
 */
const rows = (p) => p.evaluate(() => {
  const w = document.getElementById('t')?.watcher;
  const s = w?.status();
  if (!s?.synced || s.restored) return null;
  const keys = w.snapshot().map((r) => `${r.metadata.namespace ?? ''}/${r.metadata.name}`).sort();
  return keys.length === s.objects && { rv: s.resourceVersion, keys };
});

/** Waits until the page holds the server's pods at the version it shows. */
async function showsServer(p, what) {
  return until(what, async () => {
    const shown = await rows(p);
    if (!shown) return null;
    const server = await serverPods(shown.rv);
    return JSON.stringify(shown.keys) === JSON.stringify(server) && server.length;
  }, 120000, 500);
}

/** The views kept in the page's origin: { count, bytes } (the database is not made when absent). */
const kept = (p) => p.evaluate(async () => {
  const dbs = await indexedDB.databases();
  if (!dbs.some((d) => d.name === 'kubelive-views')) return { count: 0, text: '' };
  return new Promise((resolve) => {
    const r = indexedDB.open('kubelive-views');
    r.onerror = () => resolve({ count: -1, text: '' });
    r.onsuccess = () => {
      const db = r.result;
      if (!db.objectStoreNames.contains('views')) {
        db.close();
        resolve({ count: 0, text: '' });
        return;
      }
      const tx = db.transaction(['views', 'screens']);
      const all = tx.objectStore('views').getAll();
      const screens = tx.objectStore('screens').getAll();
      tx.oncomplete = () => {
        db.close();
        const text = all.result.map((b) => new TextDecoder('latin1').decode(b)).join('\n');
        resolve({ count: all.result.length, text, bytes: all.result.reduce((n, b) => n + b.length, 0), screens: screens.result });
      };
    };
  });
});

/** The pages' pods requests since index `from`. */
const requestsSince = (from) => podRequests.slice(from);

const browser = await launch();
const problems = [];
const context = await browser.newContext();

// A first visit: listed, synced, kept.
const before = await metrics();
let one = await open(context, 'one', page('', TABLE), problems);
const count = await showsServer(one, 'page one to show the server\'s pods');
let now = await metrics();
check(now.lists - before.lists >= 1, `a first visit lists (${now.lists - before.lists} LIST request(s)), ${count} pods`);
const first = await until('the view to be kept in IndexedDB', async () => {
  const k = await kept(one);
  return k.count >= 1 && k;
}, 15000, 200);
check(first.count === 1, `the synced view is kept in IndexedDB (${first.count} view, ${first.bytes} bytes)`);
check(!/managedFields|"labels"|"spec"/.test(first.text), 'what is kept holds rows (cells, identity metadata), no labels, specs or managed fields');
const screen = await until('the table\'s first screen to be kept', async () => (await kept(one)).screens.find(Boolean), 15000, 200);
const screenRows = JSON.parse(JSON.parse(screen).window).rows;
check(screenRows.length > 0 && screenRows.every((r) => r.key && r.cells.length > 0 && r.state === '')
  && !/managedFields|"labels"|"spec"/.test(screen),
`the table's first screen is kept beside it: ${screenRows.length} rows of cells, in no state, nothing else of the objects`);

// (a) A reload: the rows at once, no LIST, then current.
let mark = podRequests.length;
let beforeReload = await metrics();
const reloadStarted = Date.now();
await one.reload();
const reloadRows = await until('rows on screen after the reload', () => one.evaluate(() => window.firstRowAt), 30000, 20);
const reloadWall = Date.now() - reloadStarted;
await showsServer(one, 'the reloaded page to show the server\'s pods');
now = await metrics();
const afterReload = requestsSince(mark);
check(now.lists === beforeReload.lists && !afterReload.some((r) => r.list),
  `a reload lists nothing: ${now.lists - beforeReload.lists} LIST; pods requests ${JSON.stringify(afterReload.map((r) => (r.list ? 'LIST' : `WATCH@${r.rv}`)))}`);
const rejoined = afterReload.length === 0;
console.log(`FIGURE reload (${count} pods, ${rejoined ? 'the worker lived on: rejoined its engine' : 'restored from IndexedDB'}): first row on screen ${reloadRows.toFixed(0)} ms after navigation start (${reloadWall} ms wall from reload()), ${now.lists - beforeReload.lists} LIST`);

// Every page closed: the worker ends with its last page, and the watch stops (c).
await one.close();
await until('the watch to stop once every page is closed', async () => (await metrics()).openWatches === 0, 30000, 200);
check(true, 'closing every page stops the watch');

// A new page: the kept rows at once (restored), a WATCH from their version, no LIST.
mark = podRequests.length;
beforeReload = await metrics();
let t0 = Date.now();
let release = holdWorker();
one = await open(context, 'again', page('', TABLE), problems);
let firstRow = await until('rows on screen on the new page', () => one.evaluate(() => window.firstRowAt), 30000, 20);
let wall = Date.now() - t0;
const early = await one.evaluate(() => {
  const root = document.getElementById('t').shadowRoot;
  return { phase: root.querySelector('[part~=status]').dataset.phase, rows: root.querySelectorAll('[part~=row]').length, statuses: window.statuses.length };
});
check(early.rows > 0 && early.phase === 'restored' && early.statuses === 0,
  `the kept first screen is drawn by the page while its worker cannot start: ${early.rows} rows, the status line says ${early.phase}, the watcher has said nothing yet (${early.statuses} statuses)`);
release();
await showsServer(one, 'the new page to show the server\'s pods');
now = await metrics();
let statuses = await one.evaluate(() => window.statuses);
let restoredStatus = statuses.find((s) => s.phase === 'restored');
let sinceOpen = requestsSince(mark);
check(restoredStatus && restoredStatus.restored && restoredStatus.synced && restoredStatus.objects > 0,
  `the kept rows are shown at once, marked restored (${JSON.stringify(restoredStatus)})`);
check(statuses[0]?.phase === 'restored', `the first status the page shows is restored, not a listing that is not happening (${statuses.slice(0, 3).map((x) => x.phase).join(', ')})`);
check(sinceOpen.length > 0 && sinceOpen[0].watch && sinceOpen[0].rv === restoredStatus?.rv,
  `its first pods request is a WATCH from the kept version ${restoredStatus?.rv} (${JSON.stringify(sinceOpen.slice(0, 3))})`);
check(now.lists === beforeReload.lists && !sinceOpen.some((r) => r.list), `no LIST (${now.lists - beforeReload.lists})`);
const last = statuses[statuses.length - 1];
check(last.phase === 'watching' && !last.restored, `then watching, no longer restored (${last.phase}, restored ${last.restored})`);
console.log(`FIGURE restore (${count} pods, the worker started anew): first row on screen (the kept first screen, its worker held) ${firstRow.toFixed(0)} ms after navigation start (${wall} ms wall from goto()), ${now.lists - beforeReload.lists} LIST, first request ${sinceOpen[0]?.watch ? 'WATCH' : 'LIST'}`);

// (b) Kept longer than the watch cache window: 410, a relist, the deletes shown.
const keptRows = (await rows(one)).keys;
await one.close();
await until('the watch to stop', async () => (await metrics()).openWatches === 0, 30000, 200);
const closedAt = Date.now();
const waitMs = (WINDOW_S + 8) * 1000;
console.log(`  ..   waiting ${waitMs / 1000} s (the sim's watch cache window is ${WINDOW_S} s) while the pods churn`);
await new Promise((r) => setTimeout(r, waitMs));
const serverNow = new Set(await serverPods());
// The pods deleted meanwhile that the kept view holds (its rows' names are in its bytes).
const blank = await open(context, 'blank', page('', ''), problems);
const keptText = (await kept(blank)).text;
await blank.close();
const gone = keptRows.filter((k) => !serverNow.has(k) && keptText.includes(k.split('/')[1]));
mark = podRequests.length;
beforeReload = await metrics();
one = await open(context, 'expired', page('', TABLE), problems);
await showsServer(one, 'the page to show the server\'s pods after the relist');
now = await metrics();
statuses = await one.evaluate(() => window.statuses);
sinceOpen = requestsSince(mark);
restoredStatus = statuses.find((s) => s.restored);
check(restoredStatus && restoredStatus.objects > 0,
  `kept ${((Date.now() - closedAt) / 1000).toFixed(0)} s: the kept rows are shown first, restored (${restoredStatus?.objects} rows)`);
check(sinceOpen[0]?.watch && sinceOpen.some((r) => r.list),
  `the watch from the kept version expired (410): listed again (${JSON.stringify(sinceOpen.slice(0, 3).map((r) => (r.list ? 'LIST' : `WATCH@${r.rv}`)))})`);
check(now.lists - beforeReload.lists >= 1, `one relist: ${now.lists - beforeReload.lists} LIST request(s)`);
const shownNow = new Set((await rows(one)).keys);
check(gone.length > 0 && gone.every((k) => !shownNow.has(k)),
  `the ${gone.length} pods deleted meanwhile have left the view`);
const lastStatus = statuses[statuses.length - 1];
check(!lastStatus.restored, `no longer restored once synced (${lastStatus.phase})`);

// Another cluster at the same URL: the kept view is dropped, the new page lists.
const keptBefore = await kept(one);
await one.close();
await until('the watch to stop', async () => (await metrics()).openWatches === 0, 30000, 200);
clusterUid = 'bbbbbbbb-0000-4000-8000-000000000002';
mark = podRequests.length;
release = holdWorker();
one = await open(context, 'other-cluster', page('', TABLE), problems);
await new Promise((r) => setTimeout(r, 1500));
const drawn = await one.evaluate(() => window.firstRowAt);
check(drawn === null, `another cluster: the kept first screen is not drawn (${drawn === null ? 'no row' : `a row at ${drawn.toFixed(0)} ms`} while the worker could not start)`);
release();
await showsServer(one, 'the page on another cluster to show the server\'s pods');
statuses = await one.evaluate(() => window.statuses);
sinceOpen = requestsSince(mark);
check(keptBefore.count >= 1 && !statuses.some((s) => s.restored) && sinceOpen[0]?.list,
  `another cluster (the kube-system uid changed): nothing restored, listed (${sinceOpen[0]?.list ? 'LIST' : 'WATCH'} first)`);
await one.close();
await context.close();

// (d) persist: false: nothing is written. And the default (persist on) writes, for
// comparison, in a fresh context each.
const WATCHER = (persist, shared = true) => `<script type="module">
  const { default: init, Watcher } = await import('/ui/npm/index.js');
  await init();
  const w = new Watcher({ path: '/api/v1/pods', format: 'table', shared: ${shared}${persist === undefined ? '' : `, persist: ${persist}`} });
  w.onSynced(() => { window.synced = true; });
  w.onStatus((s) => window.statuses.push({ phase: s.phase, restored: s.restored, synced: s.synced, objects: s.objects, rv: s.resourceVersion }));
  w.start();
  window.w = w;
</script>`;
for (const persist of [false, undefined]) {
  const fresh = await browser.newContext();
  const p = await open(fresh, `persist-${persist}`, page('', WATCHER(persist)), problems);
  await until(`the watcher (persist ${persist}) to sync`, () => p.evaluate(() => window.synced), 60000);
  await new Promise((r) => setTimeout(r, 1500));
  const k = await kept(p);
  if (persist === false) check(k.count === 0 && !k.screens?.length, `persist: false keeps nothing in IndexedDB (${k.count} views, ${k.screens?.length ?? 0} screens)`);
  else check(k.count === 1, `persist left out (a shared table): the view is kept (${k.count} view)`);
  await fresh.close();
}

// A page's own engine (not shared) with persist: true: the same restore on a reload.
{
  const fresh = await browser.newContext();
  const p = await open(fresh, 'page-mode', page('', WATCHER(true, false)), problems);
  await until('the page\'s own persisted watcher to sync', () => p.evaluate(() => window.synced), 60000);
  await until('its view to be kept', async () => (await kept(p)).count === 1, 15000, 200);
  mark = podRequests.length;
  const listsBefore = (await metrics()).lists;
  await p.reload();
  const restored = await until('the reloaded page\'s watcher to be current', () => p.evaluate(() => {
    const s = window.w?.status();
    return s?.phase === 'watching' && !s.restored && window.statuses.find((x) => x.phase === 'restored');
  }), 30000, 50);
  // A WATCH from past the kept version made as the reload began is the old page's
  // (its watch had just resumed): the reloaded page starts from the kept one.
  const after = requestsSince(mark).filter((r, i, all) => !(r.watch && Number(r.rv) > Number(restored.rv)
    && !all.slice(0, i).some((x) => x.watch && x.rv === restored.rv)));
  const phases = await p.evaluate(() => window.statuses.map((x) => x.phase));
  check(phases[0] === 'restored', `page mode: the first status after the reload is restored (${phases.slice(0, 3).join(', ')})`);
  check(restored.objects > 0 && after[0]?.watch && after[0].rv === restored.rv && !after.some((r) => r.list)
    && (await metrics()).lists === listsBefore,
  `page mode (persist: true, not shared): a reload shows ${restored.objects} kept rows, restored, then a WATCH from ${restored.rv}, no LIST (${JSON.stringify(after.slice(0, 2).map((r) => (r.list ? 'LIST' : `WATCH@${r.rv}`)))})`);
  await fresh.close();
}

// <kubelive-table persist="false" shared>: the attribute is the Watcher's option.
{
  const fresh = await browser.newContext();
  const p = await open(fresh, 'attribute-off', page('', TABLE.replace(' shared>', ' shared persist="false">')), problems);
  await until('the table (persist="false") to sync', () => p.evaluate(() => document.getElementById('t')?.watcher?.status().synced), 60000);
  await new Promise((r) => setTimeout(r, 1500));
  const k = await kept(p);
  const prop = await p.evaluate(() => document.getElementById('t').persist);
  check(k.count === 0 && !k.screens?.length && prop === false, `<kubelive-table shared persist="false"> keeps nothing (${k.count} views, ${k.screens?.length ?? 0} screens; property persist ${prop})`);
  await fresh.close();
}

// A hung identity read (the kube-system namespace never answers): a persisted watcher
// does not wait for it past its 2 s deadline; it lists, syncs, and keeps nothing.
{
  hangIdentity = true;
  const fresh = await browser.newContext();
  mark = podRequests.length;
  const t = Date.now();
  const p = await open(fresh, 'hung-identity', page('', WATCHER(true, false)), problems);
  await until('the first pods request despite a hung identity read', () => requestsSince(mark).length > 0, 15000, 50);
  const waited = requestsSince(mark)[0].at - t;
  await until('the watcher to sync without an identity', () => p.evaluate(() => window.synced), 60000);
  const first = requestsSince(mark)[0];
  check(first.list && waited < 4000, `a hung identity read holds the first request ${waited} ms (< 4 s, its deadline 2 s), a LIST`);
  const phases = await p.evaluate(() => window.statuses.map((x) => x.phase));
  check(phases[0] === 'listing' && !phases.includes('restored'), `then listing, nothing restored (${phases.slice(0, 3).join(', ')})`);
  await fresh.close();
  hangIdentity = false;
}

// An identity read that fails past its deadline (the kube-system namespace answers
// 503 for 4 s): the watcher does not wait for it, and its view is kept once the
// identity is read, so that the next visit restores it.
{
  failIdentityUntil = Date.now() + 4000;
  const fresh = await browser.newContext();
  mark = podRequests.length;
  const t = Date.now();
  const p = await open(fresh, 'late-identity', page('', WATCHER(true, false)), problems);
  await until('the first pods request despite a failing identity read', () => requestsSince(mark).length > 0, 15000, 50);
  const waited = requestsSince(mark)[0].at - t;
  await until('the watcher to sync without an identity', () => p.evaluate(() => window.synced), 60000);
  check(requestsSince(mark)[0].list && waited < 4000, `a failing identity read holds the first request ${waited} ms (< 4 s), a LIST`);
  const late = await until('the view to be kept once the identity is read', async () => (await kept(p)).count >= 1, 20000, 250)
    .then(() => Date.now() - t).catch(() => null);
  check(late !== null && late >= 4000, `the view is kept once the identity is read (${late} ms after the page opened; the read failed for 4 s)`);
  await fresh.close();
  failIdentityUntil = 0;
  // The browser logs each 503 it was answered (the failures injected here): not the
  // page's errors.
  for (let i = problems.length - 1; i >= 0; i -= 1) {
    if (/^late-identity: console: Failed to load resource: .* 503 /.test(problems[i])) problems.splice(i, 1);
  }
}

// The app's own view: its first screen is kept beside its kept view, and a reload
// draws it before discovery has answered (held here), marked kept; then the engine's
// restored rows take its place, with no LIST. On another cluster nothing is drawn.
{
  const fresh = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await fresh.addInitScript(() => {
    // The first rows drawn (keys by place), whether they were the kept screen, and
    // what the status bar said then.
    window.firstRows = null;
    const look = () => {
      const rows = [...document.querySelectorAll('.row:not(.gone)')];
      if (rows.length) {
        window.firstRows = {
          at: performance.now(),
          kept: document.querySelector('.app')?.dataset.firstScreen === 'kept',
          headline: document.getElementById('status-headline')?.textContent ?? '',
          keys: rows.sort((a, b) => a.ariaRowIndex - b.ariaRowIndex).map((r) => r.dataset.key),
        };
      } else requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
    // Every row the page has drawn (under churn the top rows change).
    window.seen = new Set();
    const see = () => {
      for (const r of document.querySelectorAll('.row:not(.gone)')) window.seen.add(r.dataset.key);
      requestAnimationFrame(see);
    };
    requestAnimationFrame(see);
  });
  const p = await fresh.newPage();
  p.on('pageerror', (e) => problems.push(`app: ${e}`));
  p.on('console', (m) => {
    if (m.type() === 'error') problems.push(`app: console: ${m.text()}`);
  });
  await p.goto(`${ORIGIN}/ui/#r=v1/pods`);
  await until('the app to sync', () => p.evaluate(() => document.querySelector('#status[data-synced="true"]') !== null), 60000);
  const appScreen = (k) => (k.screens ?? []).map((x) => JSON.parse(x).window).find((w) => w.startsWith('KLVW'));
  await until('the app\'s first screen to be kept', async () => appScreen(await kept(p)), 15000, 200);
  const shown = new Set(await p.evaluate(() => [...window.seen]));
  const rv = await p.evaluate(() => document.querySelector('#status')?.dataset.rv);
  mark = podRequests.length;
  const listsBefore = (await metrics()).lists;
  let release;
  discoveryHeld = new Promise((r) => { release = r; });
  await p.reload();
  const drawn = await until('the app\'s kept first screen while discovery is held', () => p.evaluate(() => window.firstRows), 10000, 20)
    .catch(() => null);
  // The status bar says so within a moment of the rows (its render may follow theirs by
  // a frame), still before discovery answers.
  const headline = () => p.evaluate(() => document.getElementById('status-headline')?.textContent ?? '');
  if (drawn && !/as this browser kept them/.test(drawn.headline)) {
    drawn.headline = await until('the status bar to say the rows are kept', async () => {
      const h = await headline();
      return /as this browser kept them/.test(h) && h;
    }, 1000, 20).catch(() => drawn.headline);
  }
  release();
  discoveryHeld = null;
  check(drawn?.kept && drawn.keys.length >= 10 && drawn.keys.every((k) => shown.has(k))
    && /as this browser kept them/.test(drawn.headline),
  `the app's reload draws its kept first screen before discovery answers: ${drawn?.keys.length} rows the page showed, marked kept, "${drawn?.headline}" (${drawn?.at.toFixed(0)} ms; not shown before: ${JSON.stringify(drawn?.keys.filter((k) => !shown.has(k)))})`);
  const live = await until('the app\'s restored view to replace its kept screen', () => p.evaluate(() => document.querySelector('.app')?.dataset.firstScreen === undefined
    && document.querySelector('#status[data-synced="true"]') !== null && document.querySelectorAll('.row').length > 0), 30000, 50).catch(() => false);
  const after = requestsSince(mark);
  check(live && !after.some((r) => r.list) && (await metrics()).lists === listsBefore,
    `then the engine's rows take its place, with no LIST (${JSON.stringify(after.slice(0, 3).map((r) => (r.list ? 'LIST' : `WATCH@${r.rv}`)))}; kept at ${rv})`);
  // Another cluster at the same URL: nothing is drawn while discovery is held.
  clusterUid = 'cccccccc-0000-4000-8000-000000000003';
  discoveryHeld = new Promise((r) => { release = r; });
  await p.reload();
  await new Promise((r) => setTimeout(r, 1500));
  const other = await p.evaluate(() => window.firstRows);
  release();
  discoveryHeld = null;
  await until('the app to sync on the other cluster', () => p.evaluate(() => document.querySelector('#status[data-synced="true"]') !== null), 60000);
  check(other === null, `another cluster: the app draws no kept row before discovery (${other?.keys?.length ?? 0} drawn)`);
  await fresh.close();
}

check(problems.length === 0, `no page errors (${problems.join('; ')})`);
await browser.close();
front.close();
done('restore');
