// The app, the JS API's Watcher and <kubelive-table> in Firefox (ESR, through
// geckodriver) and WebKit (WebKitGTK's MiniBrowser, through WebKitWebDriver), against
// kubelive-sim under faults behind the real `kubectl proxy --www dist`.
//
// BROWSERS (default `firefox,webkit`) says which run; FULL says which of them run the
// whole set (default: all of BROWSERS; ~75 s for both here); the others run the smoke
// part only (a sample, should the suite's time ever need one: TESTING.md).
// Per browser:
// * smoke: the app syncs and converges to the server's truth; the detail panel opens
//   on Enter and shows the object's YAML; no page error;
// * full: plus the sim's restarts (410, relists) are survived and converged from, the
//   keyboard filter, the streaming sync (`&stream=1`: given up for LIST + WATCH where
//   the server gzips it, and live), the Watcher syncs and converges from the npm package,
//   <kubelive-table> renders the server's rows, the tree view opens a Deployment over
//   its ReplicaSets and Pods (as the sim has them) and closes it by key, and the layout checks at 360 to
//   2,560 px (web/tests/checks/layout.js, as widths.mjs runs them in Chromium), the app
//   keeping its first screen, the app left for another page holding no watch, and a
//   shared table's view kept in IndexedDB and restored by a new page;
// * in both: the fetch body's reader the engine offers (BYOB, or the default reader's
//   chunks the app falls back to) is reported, and the app converging proves that path.
import { ARTIFACTS, check, convergeTo, done, getJson, simPodMetrics, until } from '../lib.mjs';
import { columnOf, converges, tableConverges } from '../watcherlib.mjs';
import { Browser, Key, TooNarrow } from './webdriver.mjs';
import { pageErrors, removePages, resizeLoops, writePages } from './pages.mjs';
import { aligned, columns, offscreen, visible } from '../checks/layout.js';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const BROWSERS = (process.env.BROWSERS || 'firefox,webkit').split(',').filter(Boolean);
const FULL = (process.env.FULL ?? BROWSERS.join(',')).split(',').filter(Boolean);
const NS0 = '/api/v1/namespaces/ns-0/pods';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A check named with its browser. */
const checkIn = (b) => (cond, what) => check(cond, `[${b.name}] ${what}`);

await writePages();
const timings = [];
try {
  for (const name of BROWSERS) {
    const started = Date.now();
    const full = FULL.includes(name);
    console.log(`${name}: ${full ? 'the full set' : 'smoke'}`);
    // Tall enough that every row of the small cluster is in the DOM (the table is
    // virtualised) and convergence can compare them all.
    let b = await Browser.start(name, { width: 1400, height: 4000 });
    console.log(`  ${b.version}`);
    try {
      await app(b, full);
      if (full) {
        await streaming(b);
        await watcher(b);
        await component(b);
        await widths(b);
        // Last, in a browser of its own: WebKitGTK keeps a left page's streaming
        // responses open a while (the pages above leave some), and the tree view holds
        // four watches: it would wait for connections, past its deadline.
        await b.close();
        b = await Browser.start(name, { width: 1400, height: 4000 });
        await forest(b);
        // A left page's watches, and a shared table's kept view: each waits for every
        // pods watch to stop, so in a browser of its own too.
        await b.close();
        b = await Browser.start(name, { width: 1400, height: 900 });
        await leftPage(b);
        await keptView(b);
      }
    } catch (e) {
      check(false, `[${name}] ${e.stack || e}`);
      await b.screenshot(`${ARTIFACTS}/xb-${name}-failure.png`).catch(() => {});
    } finally {
      await b.close();
    }
    timings.push(`${name} ${full ? 'full' : 'smoke'} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
} finally {
  await removePages();
}
console.log(`cross-browser: ${timings.join(', ')}`);
done('cross-browser');

/**
 * The app left for another page (which the browser may keep in its back/forward
 * cache: WebKitGTK does, and kept its watches open; Firefox ESR unloads it, and kept
 * its watch open in 11 of 43 runs until the page's engine stopped on pagehide) holds
 * no watch: the sim's pods watches stay at 0 (three readings in a row, half a second
 * apart: a watch the sim's faults cut is resumed at once).
 */
async function leftPage(b) {
  const ok = checkIn(b);
  await b.goto(`${BASE}/ui/xb/app.html#r=v1/pods&ns=ns-2`);
  await until('the app to sync', async () => (await status(b))?.synced, 60000);
  // Its first screen is kept beside its kept view (written while the page is shown,
  // never as it leaves): a saved view of the top rows.
  const screen = await until('the app\'s first screen to be kept', async () => {
    const { screens } = await keptViews(b);
    const kept = screens.find(([k]) => k.includes('/namespaces/ns-2/pods') && k.includes('\n\napp\n'));
    return kept ? JSON.parse(kept[1]).window.slice(0, 4) : null;
  }, 40000, 500).catch(() => null);
  ok(screen === 'KLVW', `the app keeps its first screen in IndexedDB (${screen})`);
  // Left once its version has moved past its last save: the view is saved as the page
  // goes, unless the page goes into the back/forward cache (WebKitGTK froze such a
  // write with the page, and no other page could keep a view: keptView below).
  const savedAt = (await status(b)).rv;
  await until('the app\'s version to move', async () => (await status(b)).rv > savedAt, 30000, 250).catch(() => {});
  await b.goto(`${BASE}/ui/xb/blank.html`);
  let zeros = 0;
  const seen = [];
  const closed = await until('the left page\'s watch to close', async () => {
    const open = (await simPodMetrics(BASE)).openWatches;
    seen.push(open);
    zeros = open === 0 ? zeros + 1 : 0;
    return zeros >= 3;
  }, 20000, 500).catch(() => false);
  ok(closed, `the app left for another page holds no watch open (open, every 0.5 s: ${seen.slice(-8).join(' ')})`);
}

/**
 * `<kubelive-table shared>` (persisted): the view and its first screen are kept in
 * IndexedDB; once every page has gone and the worker's watch has stopped, a new page's
 * table is restored from them (its status says restored before it is synced again).
 */
async function keptView(b) {
  const ok = checkIn(b);
  await b.goto(`${BASE}/ui/xb/kept.html`);
  const synced = () => b.evaluate(() => document.getElementById('kept')?.watcher?.status().synced === true);
  await until('the shared table to sync', synced, 60000);
  // The screen: cells of the first rows, no row state (what the page drew, kept).
  // The table's (the app left earlier keeps its own, of another namespace).
  let kept = { views: [], screens: [] };
  const screen = await until('its first screen to be kept in IndexedDB', async () => {
    kept = await keptViews(b);
    const table = kept.screens.find(([k]) => k.includes('/namespaces/ns-1/pods'));
    return kept.views.some((k) => k.includes('/namespaces/ns-1/pods')) && table ? table[1] : null;
  }, 30000, 500).catch(() => null);
  const rows = screen ? JSON.parse(JSON.parse(screen).window).rows : [];
  const soFar = screen ? '' : `; kept: views ${JSON.stringify(kept.views)}, screens ${JSON.stringify(kept.screens.map(([k]) => k))}`;
  ok(rows.length > 0 && rows.every((r) => r.key.startsWith('ns-1/') && r.cells.length > 0 && r.state === ''),
    `a shared table's view and first screen are kept in IndexedDB (${rows.length} rows of cells, in no state${soFar})`);
  // Every page gone: the worker's engine stops after its grace (5 s), and its watch
  // with it. The page is replaced, not left in history: WebKitGTK keeps a left page
  // in its page cache and suspends the worker with it (the view's grace never ends
  // while it is away). A page that did not say goodbye is dropped after three missed
  // heartbeats (6 s), and a watch the sim's faults cut shows none open for a moment:
  // so not before 12 s.
  await b.evaluate(() => location.replace('/ui/xb/blank.html'));
  const left = Date.now();
  const stopped = await until('the shared view\'s watch to stop', async () => Date.now() - left > 12000
    && (await simPodMetrics(BASE)).openWatches === 0, 30000, 250).catch(() => false);
  ok(stopped, 'leaving the only page of a shared view stops its watch');
  await b.goto(`${BASE}/ui/xb/kept.html`);
  // A restored view says synced at once: wait for the watch to confirm it.
  await until('the new page\'s table to be live', () => b.evaluate(() => window.__statuses?.some((s, i) => i > 0 && s.synced && !s.restored)), 60000)
    .catch(() => {});
  const statuses = await b.evaluate(() => window.__statuses);
  // Its first word is the restore (not a live engine's status: the view's engine
  // had stopped), then the watch confirms the rows.
  const live = statuses.findIndex((s, i) => i > 0 && s.synced && !s.restored);
  ok(statuses[0]?.restored === true && live > 0,
    `a new page's table is restored from the kept view, then live: ${JSON.stringify(statuses.slice(0, 6))}`);
  ok((await pageErrors(b)).length === 0, `no page error: ${JSON.stringify(await pageErrors(b))}`);
}

/**
 * What the origin keeps in IndexedDB (`kubelive-views`): the kept views' keys and the
 * screens as [key, value] pairs (none before anything was kept).
 */
function keptViews(b) {
  return b.evaluate(async () => {
    const db = await new Promise((resolve) => {
      const r = indexedDB.open('kubelive-views');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => resolve(null);
    });
    if (!db || !db.objectStoreNames.contains('screens')) {
      db?.close();
      return { views: [], screens: [] };
    }
    const tx = db.transaction(['views', 'screens']);
    const views = tx.objectStore('views').getAllKeys();
    const keys = tx.objectStore('screens').getAllKeys();
    const values = tx.objectStore('screens').getAll();
    await new Promise((resolve) => { tx.oncomplete = resolve; });
    db.close();
    return { views: views.result, screens: keys.result.map((k, i) => [k, values.result[i]]) };
  });
}

/** The status bar's facts (null before the app rendered it). */
function status(b) {
  return b.evaluate(() => {
    const st = document.getElementById('status');
    return st && {
      phase: st.dataset.phase,
      synced: st.dataset.synced === 'true',
      relists: Number(st.dataset.relists),
      rv: Number(st.dataset.rv || 0),
      text: st.innerText.replace(/\s+/g, ' '),
    };
  });
}

async function app(b, full) {
  const ok = checkIn(b);
  await b.goto(`${BASE}/ui/xb/app.html#r=v1/pods`);
  const reader = await b.evaluate(async () => {
    const body = (await fetch('/api', { cache: 'no-store' })).body;
    try {
      new ReadableStreamBYOBReader(body).releaseLock();
      return 'BYOB (a byte stream)';
    } catch (e) {
      return `the default reader's chunks (no BYOB: ${e.name})`;
    }
  });
  console.log(`  the fetch body is read with ${reader}`);
  await until('the first sync', async () => (await status(b))?.synced, 60000);
  ok(true, 'the app syncs');
  await convergeTo(b, BASE, '/api/v1/pods', `[${b.name}] the pods table (read with ${reader})`);
  await b.screenshot(`${ARTIFACTS}/xb-${b.name}-app.png`);

  if (full) {
    // The sim restarts every 30 s (--faults restart@): the watches end, their resume
    // is too old (410, compacted) and the app relists, then converges again.
    const relisted = await until('a relist after the sim restarted', async () => (await status(b))?.relists > 0, 75000).catch(() => false);
    ok(relisted, `the app relisted after a restart (${(await status(b)).text})`);
    await convergeTo(b, BASE, '/api/v1/pods', `[${b.name}] the pods table, after restarts`);

    // "/" focuses the filter; typing filters; Escape clears.
    await b.click('#scroller');
    await b.press('/');
    ok(await b.evaluate(() => document.activeElement?.id === 'filter'), '"/" focuses the filter');
    await b.press(...'app-1');
    await sleep(400);
    const names = await b.evaluate(() => [...document.querySelectorAll('.row:not(.gone) .td.name')].map((e) => e.textContent));
    ok(names.length > 0 && names.every((n) => n.includes('app-1')), `the filter shows only matching names (${names.length})`);
    await b.press(Key.Escape);
    await sleep(300);
    ok(await b.evaluate(() => document.getElementById('filter').value === ''), 'Escape clears the filter');
  }

  // The detail panel: the selected row's object, fetched (a GET the sim may fail with
  // a 500 or cut: then the panel says so, and opening it again asks again).
  let detail = null;
  for (let attempt = 0; attempt < 5 && !detail?.text; attempt++) {
    await b.click('#scroller');
    await b.press(Key.ArrowDown, Key.ArrowDown, Key.Enter);
    detail = await until('the fetched object or its error', () => b.evaluate(() => {
      const text = document.getElementById('detail-text');
      const error = document.getElementById('detail-error');
      if (!text && !error) return null;
      return {
        selected: document.querySelector('.row.selected')?.dataset.key,
        name: document.getElementById('detail-name')?.textContent,
        text: text?.textContent,
        format: text?.dataset.format,
        error: error?.textContent,
      };
    }), 20000);
    if (!detail.text) {
      console.log(`  the detail panel said: ${detail.error}; again`);
      await b.press(Key.Escape);
    }
  }
  ok(detail?.selected?.endsWith(`/${detail.name}`), `Enter opens the selected row's object (${detail?.name})`);
  const yaml = detail?.text || '';
  ok(detail?.format === 'yaml' && yaml.includes('kind: Pod') && yaml.includes(`name: ${detail.name}`) && /\nspec:/.test(yaml),
    `the detail panel shows the object's YAML (${yaml.split('\n').slice(0, 3).join(' | ') || detail?.error})`);
  await b.screenshot(`${ARTIFACTS}/xb-${b.name}-detail.png`);
  await b.press(Key.Escape);
  ok(await until('the panel to close', () => b.evaluate(() => !document.getElementById('detail')), 5000).catch(() => false), 'Escape closes the detail panel');

  const errors = await pageErrors(b);
  ok(errors.length === 0, `no page errors, console errors or CSP violations (${errors.join('; ')})`);
}

/**
 * The streaming sync (`&stream=1`): a kube-apiserver 1.37 (the sim's default) gzips a
 * streaming list one member per flush, and browsers keep only a gzip body's first
 * member; the app must give the stream up and sync with LIST + WATCH, and stay live.
 * A view the app has kept is not listed at all (it watches from its kept version), so
 * this one is a namespace's pods, a view the app has not shown before.
 */
async function streaming(b) {
  const ok = checkIn(b);
  const version = await getJson(`${BASE}/version`);
  await b.goto(`${BASE}/ui/xb/app.html#r=v1/pods&ns=ns-1&stream=1`);
  const synced = await until('the streamed view to sync', async () => {
    const s = await status(b);
    return s?.synced && s.phase === 'watching' && s;
  }, 60000).catch(() => null);
  ok(synced, `with stream=1 against ${version.gitVersion} the app syncs (${synced?.text ?? (await status(b))?.text})`);
  // Live: the view passes the server's version of now (4 changes/s), and equals the
  // server's list there.
  const now = Number((await getJson(`${BASE}/api/v1/namespaces/ns-0/pods?limit=1`)).metadata.resourceVersion);
  const live = await until('the view to pass the server\'s version', async () => (await status(b))?.rv > now, 20000).catch(() => false);
  ok(live, `with stream=1 the view stays live (passed rv ${now}: ${(await status(b))?.rv})`);
  await convergeTo(b, BASE, '/api/v1/namespaces/ns-1/pods', `[${b.name}] the streamed pods table`);
  // 1.37 gzips the streaming list (WatchListCompression): the status says once why
  // the view did not stream (an older release refuses it, 422: said too).
  const gzips = Number(version.minor) >= 37;
  const facts = await b.evaluate(() => [...document.querySelectorAll('#status .fact')].map((f) => f.textContent));
  const off = facts.filter((f) => /streaming list off/i.test(f));
  ok(off.length === 1 && (!gzips || /gzip/i.test(off[0])), `the status says once that the streaming list is off${gzips ? ' (gzip)' : ''}: ${off.join(' | ') || facts.join(' | ')}`);
  const errors = await pageErrors(b);
  ok(errors.length === 0, `no page errors with stream=1 (${errors.join('; ')})`);
}

/** The JS API: a Watcher from the npm package (dist/npm) syncs and converges. */
async function watcher(b) {
  const ok = checkIn(b);
  await b.goto(`${BASE}/ui/xb/blank.html`);
  await b.evaluate(async (path) => {
    const kl = await import('/ui/npm/index.js');
    await kl.default();
    window.seen = { changes: 0, phases: [], synced: 0 };
    const w = new kl.Watcher({ path });
    w.onChange(() => { window.seen.changes += 1; });
    w.onStatus((s) => window.seen.phases.push(s.phase));
    w.onSynced(() => { window.seen.synced += 1; });
    w.start();
    window.w = w;
  }, NS0);
  const read = () => {
    const s = window.w.status();
    if (!s.synced || s.phase !== 'watching') return null;
    return { rv: s.resourceVersion, objects: window.w.snapshot().map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}@${o.metadata.resourceVersion}`) };
  };
  await converges(b, BASE, NS0, read, `[${b.name}] the Watcher's snapshot equals the server's Exact list at its version`);
  const at = await b.evaluate(() => window.seen.changes);
  const more = await until('changes under churn', () => b.evaluate((n) => window.seen.changes > n, at), 20000).catch(() => false);
  ok(more, 'the Watcher delivers changes as the pods churn');
  const stopped = await b.evaluate(() => {
    window.w.stop();
    return window.w.status().phase;
  });
  ok(stopped === 'stopped', `stop() stops it (${stopped})`);
  const errors = await pageErrors(b);
  ok(errors.length === 0, `no page errors (${errors.join('; ')})`);
}

/**
 * The tree view: the namespace's Deployments as roots; a click on one's triangle shows
 * its ReplicaSets (the sim's, by uid) and their Pods; ArrowLeft on it closes it; the
 * lines fit the window.
 */
async function forest(b) {
  const ok = checkIn(b);
  await b.goto(`${BASE}/ui/xb/app.html#view=tree&r=apps/v1/deployments&ns=ns-0`);
  const roots = await until('the tree view to be live', () => b.evaluate(() => {
    const h = document.getElementById('forest-host');
    const kinds = h ? [...h.querySelectorAll('.forest-kind[data-resource]')].map((k) => k.dataset.state) : [];
    return h && kinds.length === 2 && kinds.every((k) => k === 'live') && Number(h.dataset.roots);
  }), 60000).catch(() => 0);
  // The sim fails a request now and then (its faults): asked until it answers.
  const deps = await until('the sim\'s Deployments', () => getJson(`${BASE}/apis/apps/v1/namespaces/ns-0/deployments`).then((l) => l.items), 20000);
  ok(roots > 0 && roots === deps.length, `the tree view's roots are the namespace's ${deps.length} Deployments (${roots})`);
  const uid = await b.evaluate(() => document.querySelector('#forest [role=treeitem][aria-expanded="false"]')?.dataset.key);
  ok(!!uid, 'a Deployment with lines below it can be opened');
  if (!uid) return;
  await b.click(`[role=treeitem][data-key="${uid}"] .tree-twisty`);
  let last = '';
  const opened = await until('the opened Deployment\'s ReplicaSets', async () => {
    const rss = (await getJson(`${BASE}/apis/apps/v1/namespaces/ns-0/replicasets`)).items
      .filter((r) => (r.metadata.ownerReferences || []).some((o) => o.uid === uid))
      .map((r) => r.metadata.uid).sort();
    const shown = await b.evaluate(() => [...document.querySelectorAll('#forest [role=treeitem][data-depth="1"]')]
      .map((li) => li.dataset.key).sort());
    const pods = await b.evaluate(() => document.querySelectorAll('#forest [role=treeitem][data-depth="2"]').length);
    last = `shown [${shown}] sim [${rss}], ${pods} pods`;
    return rss.length > 0 && shown.join() === rss.join() && pods > 0;
  }, 30000, 200).catch(() => false);
  ok(opened, `an opened Deployment shows its ReplicaSets (the sim's, by uid) and their pods: ${last}`);
  await b.click(`[role=treeitem][data-key="${uid}"] .tree-kind`);
  await b.press(Key.ArrowLeft);
  const closed = await until('ArrowLeft to close it', () => b.evaluate(() => document.querySelectorAll('#forest [role=treeitem][data-depth="1"]').length === 0), 5000).catch(() => false);
  ok(closed, 'ArrowLeft on the opened Deployment closes it');
  // The table and back, three times: the tree's engines stop (their fetches aborted)
  // and start again; the browser's six connections to the server are not used up.
  let again = true;
  for (let i = 0; i < 3 && again; i++) {
    await b.click('#tree-toggle');
    await until('the table', () => b.evaluate(() => !document.getElementById('forest-host') && !!document.querySelector('.row')), 20000);
    await b.click('#tree-toggle');
    again = await until('the tree view live again', () => b.evaluate(() => {
      const h = document.getElementById('forest-host');
      const kinds = h ? [...h.querySelectorAll('.forest-kind[data-resource]')].map((k) => k.dataset.state) : [];
      return kinds.length === 2 && kinds.every((k) => k === 'live');
    }), 30000).catch(() => false);
  }
  ok(again, 'the tree view toggled off and on three times is live again (aborted watches free their connections)');
  const fits = await b.evaluate(() => {
    const f = document.getElementById('forest');
    return f && f.scrollWidth <= f.clientWidth + 1;
  });
  ok(fits, 'the tree view does not scroll sideways');
  await b.screenshot(`${ARTIFACTS}/xb-${b.name}-forest.png`);
  // Below a custom resource (the sim's widget-0 controls a Deployment): the namespace
  // is read once, through the sim's injected faults, and only Deployments, their
  // ReplicaSets and Pods are watched.
  await b.goto(`${BASE}/ui/xb/app.html#view=tree&r=kubelive.dev/v1/widgets&ns=ns-0`);
  const below = await until('the widgets\' tree view to be live', () => b.evaluate(() => {
    const h = document.getElementById('forest-host');
    if (!h || document.getElementById('forest-probing')) return null;
    const kinds = [...h.querySelectorAll('.forest-kind[data-resource]')];
    return kinds.length > 0 && kinds.every((k) => k.dataset.state === 'live') && kinds.map((k) => k.dataset.resource).sort().join();
  }), 60000).catch(() => null);
  ok(below === 'deployments,pods,replicasets', `below widgets, the Deployments they control, their ReplicaSets and Pods are watched (${below})`);
  const errors = await pageErrors(b);
  ok(errors.length === 0, `no page errors (${errors.join('; ')})`);
}

/** <kubelive-table>: the element renders the server's rows. */
async function component(b) {
  const ok = checkIn(b);
  await b.goto(`${BASE}/ui/xb/component.html`);
  const read = () => {
    const w = document.getElementById('pods').watcher;
    if (!w) return null;
    const s = w.status();
    if (!s.synced || s.phase !== 'watching' || !w.columns()) return null;
    return { rv: s.resourceVersion, rows: w.snapshot().map((r) => ({ cells: r.cells, metadata: r.metadata })), columns: w.columns() };
  };
  // WebDriver hands objects back with their keys in its own order: the columns are
  // put back in the JS API's (which tableConverges compares by JSON text).
  const page = {
    evaluate: async (fn, arg) => {
      const r = await b.evaluate(fn, arg);
      return r && { ...r, columns: r.columns.map(columnOf) };
    },
  };
  await tableConverges(page, BASE, NS0, read, `[${b.name}] <kubelive-table>'s rows equal the server's Table`);
  const shown = await until('rows in the shadow DOM', () => b.evaluate(() => {
    const el = document.getElementById('pods');
    const root = el.shadowRoot;
    const rows = [...root.querySelectorAll('[part~=row]')];
    // A deleted row stays a moment, struck through, after it left the snapshot.
    const names = rows.filter((r) => r.dataset.state !== 'deleted').map((r) => r.children[0]?.textContent);
    const held = el.watcher.snapshot().map((r) => r.metadata.name);
    return rows.length > 0 && {
      rows: rows.length,
      held: held.length,
      known: names.every((n) => held.includes(n)),
      headers: [...root.querySelectorAll('[part~=header-cell]')].map((h) => h.textContent),
      height: rows[0].getBoundingClientRect().height,
    };
  }), 20000).catch(() => null);
  ok(shown && shown.known && shown.height > 0,
    `it renders rows of held objects (${shown?.rows} rendered of ${shown?.held}; headers ${shown?.headers?.join(' ')})`);
  await b.screenshot(`${ARTIFACTS}/xb-${b.name}-component.png`);
  const errors = await pageErrors(b);
  ok(errors.length === 0, `no page errors or CSP violations (${errors.join('; ')})`);
}

/**
 * The layout checks (web/tests/checks/layout.js, shared with the Chromium test
 * widths.mjs) at each width: the filter, the counts, `?`, the Name and Status columns
 * visible and usable; nothing off screen; the header over its columns. A width the
 * browser's window cannot be narrow enough for (Firefox: 500 px, MiniBrowser: 447) is
 * an iframe of that width in a wide window: a viewport of its own to the page.
 */
async function widths(b) {
  const ok = checkIn(b);
  const app = 'app.html#r=v1/pods&wide=1';
  for (const width of [360, 768, 1024, 1440, 2560]) {
    const height = width >= 2000 ? 1300 : 800;
    let framed = false;
    try {
      await b.setViewport(width, height);
      await b.goto(`${BASE}/ui/xb/${app}`);
    } catch (e) {
      if (!(e instanceof TooNarrow)) throw e;
      framed = true;
      await b.setViewport(1400, 1000);
      await b.goto(`${BASE}/ui/xb/blank.html`);
      await b.evaluate(async ({ src, width, height }) => {
        const f = document.createElement('iframe');
        f.src = src;
        f.width = width;
        f.height = height;
        f.style.border = '0';
        const loaded = new Promise((r) => f.addEventListener('load', r, { once: true }));
        document.body.append(f);
        await loaded;
      }, { src: app, width, height });
      await b.frame(0);
    }
    const at = `${width} px${framed ? ' (an iframe)' : ''}`;
    await until(`${at}: the first sync`, async () => (await status(b))?.synced, 60000);
    await until(`${at}: rows`, () => b.evaluate(() => document.querySelectorAll('.row:not(.gone)').length > 3), 20000);
    await sleep(300);
    const got = await b.evaluate(() => `${window.innerWidth}x${window.innerHeight}`);
    ok(got === `${width}x${height}`, `${at}: the page's viewport is ${got}`);
    const expect = async (fn, arg, what) => {
      const r = await b.evaluate(fn, arg);
      ok(r.ok, `${at}: ${what}${r.ok ? '' : `: ${r.why}`}`);
      return r;
    };
    for (const sel of ['#filter', '#counts', '#help-button', '.th[data-col="name"]', '.th[data-col="status"]']) {
      await expect(visible, sel, `${sel} is visible`);
    }
    await expect(offscreen, null, 'nothing is off screen');
    await expect(aligned, null, "the header's cells sit over their columns' cells");
    const cols = await expect(columns, null, 'the columns shown and hidden add up');
    console.log(`     ${at}: columns shown: ${cols.shown?.join(', ')}; hidden: ${cols.hidden}`);
    // Usable: a click in the filter and typing narrow the rows.
    const word = await b.evaluate(() => document.querySelector('.row:not(.gone) .td[data-col="name"]').textContent.split('-').slice(0, 2).join('-'));
    const typed = await b.click('#filter').then(() => b.press(...word)).catch((e) => e);
    const narrowed = typed instanceof Error ? typed.message : await until(`${at}: the filter applies`, () => b.evaluate((w) => {
      const rows = [...document.querySelectorAll('.row:not(.gone)')];
      return rows.length > 0 && rows.every((r) => r.textContent.includes(w));
    }, word), 10000).catch((e) => e.message);
    ok(narrowed === true, `${at}: clicking the filter and typing "${word}" narrows the rows${narrowed === true ? '' : `: ${narrowed}`}`);
    if (framed) await b.frame(null);
    await b.screenshot(`${ARTIFACTS}/xb-${b.name}-${width}.png`);
    if (framed) await b.frame(0);
    const errors = await pageErrors(b);
    ok(errors.length === 0, `${at}: no page errors (${errors.join('; ')})`);
    // The columns that fit are measured with a ResizeObserver: measuring and showing
    // them must settle within the frame (else each layout waits a frame for the next).
    const loops = await resizeLoops(b);
    ok(loops === 0, `${at}: the column layout settles in one ResizeObserver delivery (${loops} "ResizeObserver loop completed with undelivered notifications")`);
    if (framed) await b.frame(null);
  }
}
