// The JS API example page (no Yew) through kubectl proxy: it syncs, and its snapshot
// equals the server's list at the same resourceVersion (an Exact list), object by
// object and version by version, while the sim churns under faults.
import { launch, openPage, until, check, done, getJson, ARTIFACTS } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const browser = await launch();
try {
  const { page, problems } = await openPage(browser);
  await page.goto(`${BASE}/ui/example/`);
  await until('the example to sync', () =>
    page.evaluate(() => document.getElementById('status').dataset.synced === 'true'), 60000);
  check(true, 'the example page syncs through kubectl proxy');

  // Convergence: a snapshot and its version taken in one tick, against the server's
  // Exact list at that version.
  let matched = false;
  let last = '';
  for (let attempt = 0; attempt < 40 && !matched; attempt++) {
    const mine = await page.evaluate(() => {
      const w = window.kubeliveWatcher;
      const s = w.status();
      if (!s.synced || s.phase !== 'watching') return null;
      return {
        rv: s.resourceVersion,
        objects: w.snapshot().map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`),
      };
    });
    if (!mine) { await new Promise((r) => setTimeout(r, 250)); continue; }
    try {
      const list = await getJson(`${BASE}/api/v1/pods?resourceVersion=${mine.rv}&resourceVersionMatch=Exact`);
      const truth = list.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
      const got = [...mine.objects].sort();
      matched = truth.length === got.length && truth.every((x, i) => x === got[i]);
      last = `rv ${mine.rv}: ${got.length} held vs ${truth.length} on the server`;
    } catch (e) {
      last = String(e); // e.g. a fault (500/429) on this list: try again
    }
    if (!matched) await new Promise((r) => setTimeout(r, 250));
  }
  check(matched, `the Watcher's snapshot equals the server's Exact list at its version (${last})`);

  const one = await page.evaluate(() => {
    const w = window.kubeliveWatcher;
    const first = w.snapshot()[0];
    const got = w.get(first.metadata.namespace, first.metadata.name);
    return got && got.metadata.uid === first.metadata.uid;
  });
  check(one, 'get(ns, name) returns the object');
  const changes = await page.evaluate(() => document.querySelectorAll('#changes li').length);
  check(changes > 0, `onChange delivers changes (${changes} shown)`);
  // The web components beside it sync too (sharing the page's wasm instance), and a
  // click on a row reaches the page as kubelive-select.
  await until('the example components to sync', () => page.evaluate(() =>
    [...document.querySelectorAll('kubelive-table')].every((el) => el.watcher?.status().synced && el.shadowRoot.querySelector('[part~=row]'))), 60000);
  check(true, 'the example page\'s <kubelive-table> elements sync and show rows');
  await page.evaluate(() => document.getElementById('deployments').shadowRoot.querySelector('[part~=row] [part~=cell]').click());
  const selected = await page.evaluate(() => document.getElementById('selected').textContent);
  check(/^selected ns-\d+\/\S+$/.test(selected), `a row click reaches the page (${selected})`);
  const stopped = await page.evaluate(() => { window.kubeliveWatcher.stop(); return window.kubeliveWatcher.status().phase; });
  check(stopped === 'stopped', 'stop() stops');
  await page.screenshot({ path: `${ARTIFACTS}/example.png` });
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
} finally {
  await browser.close();
}
done('example');
