// The app through kubectl proxy against kubelive-sim under faults (cuts, aborts,
// split chunks, 500/429/HTML errors, restarts -> 410 and relists): the table converges
// to the server's truth, the status bar shows each phase, the pickers, filter, sort,
// keyboard and detail panel work, and a connection loss shows at once.
import { launch, openPage, until, check, done, convergeTo, ARTIFACTS } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const SIM_PID = Number(process.env.SIM_PID || 0);
const browser = await launch();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

try {
  // Tall enough that every row of the small e2e cluster is rendered (the table is
  // virtualized: only the visible window is in the DOM).
  const { page, problems } = await openPage(browser, { viewport: { width: 1400, height: 4000 } });
  const seen = new Map(); // phase -> headline
  let watching = true;
  const shots = new Set();
  const watcher = (async () => {
    while (watching) {
      try {
        const s = await page.evaluate(() => {
          const el = document.getElementById('status');
          return el && { phase: el.dataset.phase, synced: el.dataset.synced, relists: Number(el.dataset.relists), text: el.innerText };
        });
        if (s) {
          const key = s.phase === 'watching' && s.synced === 'true' ? 'synced' : s.phase;
          if (!seen.has(key)) seen.set(key, s.text.replace(/\s+/g, ' '));
          if (s.relists > 0 && !seen.has('relisted')) seen.set('relisted', s.text.replace(/\s+/g, ' '));
          for (const k of ['backingOff', 'relisted']) {
            if (seen.has(k) && !shots.has(k)) {
              shots.add(k);
              await page.screenshot({ path: `${ARTIFACTS}/app-${k}.png`, clip: { x: 0, y: 0, width: 1400, height: 900 } });
            }
          }
        }
      } catch (_) { /* navigation in progress */ }
      await sleep(40);
    }
  })();

  // The first LIST is held back a moment so that the listing phase is on screen for
  // a while: a LIST of 60 pods through a local proxy takes less than a frame, and a
  // phase that never reached the DOM cannot be seen (nor checked).
  const podsList = (url) => url.pathname === '/api/v1/pods' && !url.searchParams.has('watch');
  let held = false;
  await page.route(podsList, async (route) => {
    if (!held) {
      held = true;
      await sleep(1500);
    }
    await route.continue();
  });
  await page.goto(`${BASE}/ui/#r=v1/pods`);
  await until('the first sync', () => seen.has('synced'), 60000);
  await page.unroute(podsList);
  check(true, 'the table syncs');
  await page.screenshot({ path: `${ARTIFACTS}/app-main.png`, clip: { x: 0, y: 0, width: 1400, height: 900 } });

  const converge = (path, what) => convergeTo(page, BASE, path, what);
  await converge('/api/v1/pods', 'the pods table');

  // Faults: the status bar shows backoff and (after a restart) a relist with its reason.
  // The engine backs off only after an attempt that brought nothing, and the sim's
  // random 5xx/429 may spare the few requests of a minute (a watch that is not cut
  // lives for minutes): the next request for pods gets the apiserver's 503 here.
  const podsRequest = (url) => url.pathname === '/api/v1/pods';
  let refused = false;
  await page.route(podsRequest, async (route) => {
    if (refused) return route.continue();
    refused = true;
    await route.fulfill({
      status: 503,
      headers: { 'Content-Type': 'application/json', 'Retry-After': '2' },
      body: JSON.stringify({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: 'the server is currently unable to handle the request', reason: 'ServiceUnavailable',
        details: { retryAfterSeconds: 2 }, code: 503,
      }),
    });
  });
  await until('a backoff and a relist', () => seen.has('backingOff') && seen.has('relisted'), 90000).catch(() => {});
  await page.unroute(podsRequest);
  check(seen.has('listing'), `the status bar showed listing: ${seen.get('listing')}`);
  check(seen.has('backingOff'), `the status bar showed backing off: ${seen.get('backingOff')}`);
  check(seen.has('relisted'), `the status bar showed a relist: ${seen.get('relisted')}`);
  check((seen.get('relisted') || '').includes('relists'), 'relists are counted with their reason');
  await converge('/api/v1/pods', 'the pods table, after faults');

  // Keyboard: "/" focuses the filter, typing filters (and lands in the URL), Esc clears.
  await page.keyboard.press('/');
  check(await page.evaluate(() => document.activeElement?.id === 'filter'), '"/" focuses the filter');
  await page.keyboard.type('app-1');
  await sleep(300);
  const filtered = await page.evaluate(() => [...document.querySelectorAll('.row:not(.gone) .td.name')].map((e) => e.textContent));
  check(filtered.length > 0 && filtered.every((n) => n.toLowerCase().includes('app-1')), `the filter shows only matching names (${filtered.length})`);
  check((await page.evaluate(() => location.hash)).includes('q=app-1'), 'the filter is in the URL');
  await page.keyboard.press('Escape');
  await sleep(200);
  check(await page.evaluate(() => document.getElementById('filter').value === ''), 'Esc clears the filter');
  const labelled = await page.evaluate(async () => {
    const rows = document.querySelectorAll('.row').length;
    return rows;
  });
  check(labelled > 0, 'rows come back after clearing');

  // Arrows move the selection, Enter opens the detail panel, which fetches the whole
  // object (a GET through the proxy, retried by the user under faults) as YAML, with
  // a JSON switch.
  await page.locator('#scroller').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#detail', { timeout: 5000 });
  await until('the fetched object or its error', () => page.evaluate(() => document.getElementById('detail-text') || document.getElementById('detail-error')), 20000).catch(() => {});
  await page.click('#format-json');
  const detail = await page.evaluate(() => ({
    selected: document.querySelector('.row.selected')?.dataset.key,
    name: document.getElementById('detail-name')?.textContent,
    json: document.getElementById('detail-text')?.textContent,
    error: document.getElementById('detail-error')?.textContent,
  }));
  check(detail.selected && detail.selected.endsWith('/' + detail.name), `Enter opens the selected object (${detail.name})`);
  let parsed = null;
  try { parsed = JSON.parse(detail.json); } catch (_) {}
  check((parsed && parsed.metadata.name === detail.name && parsed.spec) || /HTTP|network|answer/.test(detail.error || ''),
    `the detail panel shows the whole object as JSON, or says why not under faults (${detail.error || 'shown'})`);
  await page.screenshot({ path: `${ARTIFACTS}/app-detail.png`, clip: { x: 0, y: 0, width: 1400, height: 900 } });
  await page.keyboard.press('Escape');

  // Sort by a column: the URL keeps it.
  await page.click('button.th[data-col="restarts"]');
  await page.click('button.th[data-col="restarts"]');
  await sleep(200);
  check((await page.evaluate(() => location.hash)).includes('sort=-restarts'), 'sorting is in the URL');
  const restarts = await page.evaluate(() => [...document.querySelectorAll('.row:not(.gone) .td[data-col="restarts"]')].sort((a, b) => a.closest('.row').ariaRowIndex - b.closest('.row').ariaRowIndex).map((c) => parseInt(c.textContent, 10)));
  check(restarts.length > 0 && restarts.every((v, i) => i === 0 || restarts[i - 1] >= v), 'rows sort by restarts, descending');

  // Namespace field: suggestions fed by a live watch of namespaces; a name is applied
  // with Enter.
  const options = await page.evaluate(() => [...document.querySelectorAll('#ns-options option')].map((o) => o.value));
  check(options.length > 0, `the namespace field suggests namespaces (${options.join(', ')})`);
  // A namespace of the workload's (kube-system is suggested too, and holds no pods).
  const ns = options.find((o) => o.startsWith('ns-'));
  await page.fill('#namespace', ns);
  await page.press('#namespace', 'Enter');
  await until('the namespaced view to sync', () => page.evaluate(() => {
    const st = document.getElementById('status');
    return st.dataset.synced === 'true' && location.hash.includes('ns=');
  }), 30000);
  await converge(`/api/v1/namespaces/${ns}/pods`, `pods in ${ns}`);

  // Resource picker from discovery: deployments get the server's columns (kubectl
  // get deploy's).
  const resources = await page.evaluate(() => [...document.querySelectorAll('#resource option')].map((o) => o.value));
  check(resources.includes('apps/v1/deployments'), `discovery lists resources (${resources.length})`);
  await page.selectOption('#resource', 'apps/v1/deployments');
  await until('deployments to sync', () => page.evaluate(() => document.getElementById('status').dataset.synced === 'true' && location.hash.includes('deployments')), 30000);
  const headers = await page.evaluate(() => [...document.querySelectorAll('.th')].map((h) => h.dataset.col).join(','));
  check(headers === 'name,ready,up-to-date,available,age', `deployment columns (${headers})`);
  await page.screenshot({ path: `${ARTIFACTS}/app-deployments.png`, clip: { x: 0, y: 0, width: 1400, height: 700 } });

  // A bookmarked URL restores the view.
  const url = `${BASE}/ui/#r=v1/pods&q=app-2&sort=-age`;
  await page.goto('about:blank');
  await page.goto(url);
  await until('the bookmarked view', () => page.evaluate(() => document.getElementById('filter').value === 'app-2' && document.querySelector('.th.sorted')?.dataset.col === 'age'), 20000);
  check(true, 'a bookmarked URL restores resource, filter and sort');
  await until('sync', () => page.evaluate(() => document.getElementById('status').dataset.synced === 'true'), 60000);

  // Connection loss: kill the apiserver; the status bar says so at once.
  if (SIM_PID) {
    process.kill(SIM_PID, 'SIGKILL');
    const t0 = Date.now();
    const text = await until('the loss to show', () => page.evaluate(() => {
      const st = document.getElementById('status');
      return st.dataset.phase === 'backingOff' ? st.innerText.replace(/\s+/g, ' ') : null;
    }), 10000, 20).catch(() => null);
    const ms = Date.now() - t0;
    check(text && ms < 3000, `a connection loss shows within ${ms} ms: ${text}`);
    await page.screenshot({ path: `${ARTIFACTS}/app-connection-lost.png`, clip: { x: 0, y: 0, width: 1400, height: 500 } });
  }
  watching = false;
  await watcher;
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
  check(problems.dialogs.length === 0, 'no dialogs');
  console.log('phases seen:', JSON.stringify(Object.fromEntries(seen), null, 1));
} finally {
  await browser.close();
}
done('app');
