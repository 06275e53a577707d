// The app keeps the rows of the view it shows (table rows with identity metadata, in
// IndexedDB, under the cluster's identity: the kube-system namespace's uid), so that a
// reload shows them at once and watches from their version instead of listing again.
// Against the sim through `kubectl proxy --www`, the page's pods requests counted as
// it makes them (the sim's /metrics would count this script's own reads of the truth):
// * a reload of a synced view: rows on screen with no LIST; the view is then current
//   (the server's truth at the version the status bar shows);
// * the same view in a new browser context (nothing kept): listed;
// * a Secret view is table rows too, so only their cells are kept: the kept record
//   holds no value of the Secrets' data;
// * the help's switch turns keeping off: every kept view is dropped, and a reload lists.
// Figures (logged, not asserted): navigation to the first row on screen, cold and
// after a reload.
import { launch, until, check, done, convergeTo } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';

/** The page's pods requests: LISTs and WATCHes (with the version each asked for). */
function podRequests(page) {
  const seen = { lists: 0, watches: [] };
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname !== '/api/v1/pods') return;
    if (['1', 'true'].includes(url.searchParams.get('watch'))) seen.watches.push(url.searchParams.get('resourceVersion'));
    else seen.lists += 1;
  });
  return seen;
}

/** Milliseconds from navigation start to the first row on screen. */
const firstRowMs = (page) => until('a row on screen', () => page.evaluate(() => (
  document.querySelector('.row:not(.gone)') ? Math.round(performance.now()) : null
)), 30000, 5);

/** The kept views (the `views` store: each view's saved bytes), as text. */
const keptText = (page) => page.evaluate(() => new Promise((resolve) => {
  const open = indexedDB.open('kubelive-views');
  open.onerror = () => resolve('');
  open.onsuccess = () => {
    const db = open.result;
    if (![...db.objectStoreNames].includes('views')) return resolve('');
    const req = db.transaction('views', 'readonly').objectStore('views').getAll();
    req.onsuccess = () => resolve(req.result
      .map((v) => (v instanceof Uint8Array ? new TextDecoder('latin1').decode(v) : JSON.stringify(v)))
      .join('\n'));
    req.onerror = () => resolve('');
  };
}));

const browser = await launch();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 4000 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const seen = podRequests(page);
  await page.goto(`${BASE}/ui/#r=v1/pods`);
  const cold = await firstRowMs(page);
  await convergeTo(page, BASE, '/api/v1/pods', 'the pods view');
  const m1 = { lists: seen.lists, watches: seen.watches.length };
  check(m1.lists > 0, `the first visit lists (${m1.lists} LIST requests)`);
  // The view is saved at its sync (an IndexedDB put a moment later).
  await until('the view kept', async () => (await keptText(page)).length > 0, 15000, 200);

  await page.reload();
  const warm = await firstRowMs(page);
  await convergeTo(page, BASE, '/api/v1/pods', 'the reloaded view');
  check(seen.lists === m1.lists, `a reload lists nothing (${seen.lists - m1.lists} LIST requests)`);
  const resumed = seen.watches[m1.watches];
  check(resumed && Number(resumed) > 0, `it watches from the kept version (the first request after the reload: a WATCH from ${resumed})`);
  console.log(`  first row on screen: ${cold} ms after navigation cold, ${warm} ms after a reload`);

  // A new browser context keeps nothing: it lists.
  const fresh = await browser.newContext({ viewport: { width: 1400, height: 4000 } });
  const other = await fresh.newPage();
  const seenFresh = podRequests(other);
  await other.goto(`${BASE}/ui/#r=v1/pods`);
  await convergeTo(other, BASE, '/api/v1/pods', 'the view in a new context');
  check(seenFresh.lists > 0, `a new context (nothing kept) lists (${seenFresh.lists} LIST requests)`);
  await fresh.close();

  // Secrets: rows are kept, never the values of their data.
  await page.goto(`${BASE}/ui/#r=v1/secrets`);
  await until('the secrets view synced', () => page.evaluate(() => document.getElementById('status')?.dataset.synced === 'true'), 30000);
  const secret = await fetch(`${BASE}/api/v1/secrets`).then((r) => r.json());
  // Each value as the API gives it (base64) and decoded.
  const values = secret.items.flatMap((s) => Object.values(s.data || {}))
    .flatMap((v) => [v, Buffer.from(v, 'base64').toString('latin1')])
    .filter((v) => v.length >= 6);
  check(values.length > 0, `the sim's Secrets hold data (${values.length} values)`);
  await until('the secrets view kept', async () => (await keptText(page)).includes('db-credentials'), 15000, 200);
  const kept = await keptText(page);
  check(values.every((v) => !kept.includes(v)), 'no value of a Secret is kept');

  // The user turns keeping off (the help, `?`): kept views go, a reload lists.
  await page.goto(`${BASE}/ui/#r=v1/pods`);
  await convergeTo(page, BASE, '/api/v1/pods', 'the pods view again');
  await page.click('#help-button');
  await until('the keep switch', () => page.evaluate(() => document.getElementById('keep-views')?.checked === true), 10000);
  await page.click('#keep-views');
  await until('the switch off', () => page.evaluate(() => document.getElementById('keep-views')?.checked === false), 10000);
  check((await keptText(page)) === '', 'turned off, nothing is kept');
  const before = seen.lists;
  await page.reload();
  await convergeTo(page, BASE, '/api/v1/pods', 'the view reloaded with keeping off');
  check(seen.lists > before, `with keeping off a reload lists (${seen.lists - before} LIST requests)`);
  check(errors.length === 0, `no page errors (${errors.join('; ')})`);
  await context.close();
} finally {
  await browser.close();
}
done('reload');
