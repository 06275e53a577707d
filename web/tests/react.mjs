// The React example (web/example/react, bundled by `cargo xtask dist` with esbuild):
// through the real kubectl proxy against a churning sim under faults, the table that
// `useSyncExternalStore(watcher.subscribe, watcher.snapshot)` renders converges to the
// server's Table of ns-0 pods (but for time columns), and the component renders again
// only when the watcher's version moved (no render without a change).
import { ARTIFACTS, check, done, openPage, launch, until } from './lib.mjs';
import { tableConverges } from './watcherlib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';

const browser = await launch();
try {
  const { page, problems } = await openPage(browser);
  await page.goto(`${BASE}/ui/example/react/`);
  await until('the React view to sync', () => page.evaluate(() => document.getElementById('react-status')?.dataset.synced === 'true'), 60000);
  // What React rendered (the DOM), not just what the watcher holds.
  await tableConverges(page, BASE, '/api/v1/namespaces/ns-0/pods', () => {
    const w = window.reactWatcher;
    const s = w.status();
    if (!s.synced || s.phase !== 'watching' || !w.columns()) return null;
    const shown = w.columns().map((c, i) => [c, i]).filter(([c]) => c.priority === 0);
    const heads = [...document.querySelectorAll('#root th')].map((th) => th.textContent);
    if (heads.join() !== shown.map(([c]) => c.name).join()) return null;
    // The DOM, read back into rows: each row's metadata from the snapshot it shows.
    const byName = new Map(w.snapshot().map((r) => [r.metadata.name, r]));
    const nameAt = shown.findIndex(([c]) => c.format === 'name');
    const rows = [...document.querySelectorAll('#root tbody tr')].map((tr) => {
      const texts = [...tr.children].map((td) => td.textContent);
      const row = byName.get(texts[nameAt]);
      const cells = w.columns().map((c, i) => {
        const at = shown.findIndex(([, j]) => j === i);
        if (at < 0) return row?.cells[i];
        const typed = row?.cells[i];
        return texts[at] === String(typed ?? '<none>') ? typed : texts[at];
      });
      return { cells, metadata: row?.metadata ?? { name: texts[nameAt] } };
    });
    return { rv: s.resourceVersion, rows, columns: w.columns() };
  }, "the React table equals the server's Table of ns-0 pods");
  // Renders are judged over a few changes (a calm moment may bring none for a while).
  await until('a few changes to ns-0 pods', () => page.evaluate(() => window.reactWatcher.version >= 4), 60000).catch(() => {});
  const renders = await page.evaluate(() => ({ versions: window.reactRenders, now: window.reactWatcher.version }));
  const v = renders.versions;
  const repeats = v.filter((x, i) => i > 0 && v[i - 1] === x).length;
  check(v.length >= 3 && repeats <= 1, `${v.length} renders for ${new Set(v).size} versions (up to ${renders.now}): one per change, ${repeats} repeated`);
  check(v.every((x, i) => i === 0 || v[i - 1] <= x), 'renders follow the versions in order');
  await page.screenshot({ path: `${ARTIFACTS}/react.png`, fullPage: true });
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
} finally {
  await browser.close();
}
done('react');
