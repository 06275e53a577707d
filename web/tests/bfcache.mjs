// The back/forward cache, as a user's Chromium has it: a page left for another is kept
// (frozen) to be shown again on Back. Such a page must not hold its watches open on the
// apiserver meanwhile (the server would go on sending to a page that reads nothing), and
// shown again it must be live at once, without listing again. Against the sim through
// `kubectl proxy --www`, for the app, the JS API's example page (a Watcher of every
// pod and two direct <kubelive-table>s) and a shared <kubelive-table> (its engine in
// kubelive's worker):
// * the page comes back from the cache (`pageshow` persisted), not loaded anew;
// * while it is away, the sim has no pods watch open;
// * shown again, its pods requests are WATCHes from the versions it held: no LIST;
// * the app's view is then the server's truth; no page error.
import { launch, until, check, done, convergeTo, simPodMetrics } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';

// A shared table: its engine is in kubelive's worker, which pauses a view no page
// shows (the worker may be suspended while its pages are cached).
const SHARED_URL = `${BASE}/ui/bfcache-shared.html`;
const SHARED_PAGE = `<!doctype html><meta charset="utf-8"><title>shared</title>
<kubelive-table resource="pods" namespace="ns-0" shared></kubelive-table>
<script type="module" src="./npm/component.js"></script>`;

const PAGES = [
  { name: 'the app', url: `${BASE}/ui/#r=v1/pods`, app: true },
  { name: 'the JS API example', url: `${BASE}/ui/example/`, app: false },
  { name: 'a shared <kubelive-table>', url: SHARED_URL, app: false },
];

/** The page's pods requests, in order: `{ watch, rv }`. */
function podRequests(page) {
  const seen = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (!url.pathname.endsWith('/pods')) return;
    seen.push({ watch: ['1', 'true'].includes(url.searchParams.get('watch')), rv: url.searchParams.get('resourceVersion') });
  });
  return seen;
}

const browser = await launch({ backForwardCache: true });
try {
  for (const { name, url, app } of PAGES) {
    // Tall enough that every row is in the DOM (the table is virtualised): the app's
    // convergence compares them all.
    const context = await browser.newContext({ viewport: { width: 1400, height: 4000 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.addInitScript(() => {
      window.__shown = [];
      addEventListener('pageshow', (e) => window.__shown.push(e.persisted));
    });
    const seen = podRequests(page);
    // The page before's watches (its context closed) are gone first.
    await until('no pods watch open', async () => (await simPodMetrics(BASE)).openWatches === 0, 30000, 200);
    if (url === SHARED_URL) await page.route(url, (route) => route.fulfill({ contentType: 'text/html', body: SHARED_PAGE }));
    await page.goto(url);
    if (app) await convergeTo(page, BASE, '/api/v1/pods', `${name}'s pods view`);
    const watching = await until(`${name}'s pods watches`, async () => {
      const open = (await simPodMetrics(BASE)).openWatches;
      return open > 0 && (url === SHARED_URL || seen.some((r) => r.watch)) && open;
    }, 30000, 200);

    await page.goto(`${BASE}/version`);
    const away = await until(`${name}'s watches to close while it is away`, async () => (await simPodMetrics(BASE)).openWatches === 0, 10000, 200)
      .catch(() => false);
    check(away, `${name} left for another page keeps no pods watch open (${watching} before)`);
    const mark = seen.length;
    const left = await simPodMetrics(BASE);
    await page.goBack({ waitUntil: 'commit' });
    const restored = await page.evaluate(() => window.__shown.at(-1) === true);
    const reasons = restored ? '' : JSON.stringify(await page.evaluate(() => performance.getEntriesByType('navigation')[0]?.notRestoredReasons ?? null));
    check(restored, `${name} comes back from the back/forward cache ${reasons}`);
    await until(`${name}'s watches again`, async () => (await simPodMetrics(BASE)).openWatches > 0, 30000, 200);
    const now = await simPodMetrics(BASE);
    check(now.lists === left.lists && now.watches > left.watches,
      `shown again, ${name} watches again (${now.watches - left.watches} WATCH) and lists nothing (${now.lists - left.lists} LIST)`);
    // The page's own requests (a shared table's are its worker's, not the page's).
    const back = seen.slice(mark);
    if (url !== SHARED_URL) {
      check(back.length > 0 && back.every((r) => r.watch && Number(r.rv) > 0),
        `${name}'s watches are from the versions it held: ${JSON.stringify(back.map((r) => (r.watch ? `WATCH@${r.rv}` : 'LIST')))}`);
    }
    if (app) await convergeTo(page, BASE, '/api/v1/pods', `${name} back from the cache`);
    check(errors.length === 0, `${name}: no page errors (${errors.join('; ')})`);
    await context.close();
  }
} finally {
  await browser.close();
}
done('bfcache');
