// Server-side selectors and the small things users notice, through kubectl proxy
// against the sim (no faults, a churning workload whose pods move in and out of
// `tier=backend` and change phase): the request carries the selector, pods that
// leave or join it show as deletes and adds, the table converges to the server's
// answer for the selector, the URL restores it, and a selector the server or the
// parser rejects is said next to the box. Then Home/End, `?`, the selection restored
// from the URL, and the light theme.
import { launch, openPage, until, check, done, convergeTo, getJson, columnCells, ARTIFACTS } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const browser = await launch();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const synced = (page) => page.evaluate(() => document.getElementById('status').dataset.synced === 'true');
const hash = (page) => page.evaluate(() => location.hash);
const rowKeys = (page) => page.evaluate(() => [...document.querySelectorAll('.row:not(.gone)')].map((r) => r.dataset.key));

try {
  // The sim creates every pod with tier=backend; its churn moves some to frontend.
  // Wait for a few, so the selector has something to leave out.
  const others = await until('pods outside tier=backend', async () => {
    const l = await getJson(`${BASE}/api/v1/pods?labelSelector=tier%21%3Dbackend`);
    return l.items.length >= 3 && l.items.length;
  }, 120000, 500);
  check(others >= 3, `the sim has pods outside tier=backend (${others})`);
  const { page, problems } = await openPage(browser, { viewport: { width: 1400, height: 2600 } });
  const requests = [];
  page.on('request', (r) => requests.push(decodeURIComponent(r.url().replace(BASE, ''))));
  await page.goto(`${BASE}/ui/#r=v1/pods`);
  await until('the first sync', () => synced(page), 60000);
  const before = new Set(await rowKeys(page));
  check(before.size > 10, `all pods listed (${before.size})`);

  // A label selector: Enter sends it, list and watch carry it, the URL keeps it.
  const t0 = requests.length;
  await page.fill('#filter', 'tier=backend');
  check(await page.evaluate(() => document.getElementById('filter-hint')?.textContent === 'Enter: ask the server'), 'a typed selector waits for Enter');
  await page.press('#filter', 'Enter');
  await until('the selector view to sync', async () => (await hash(page)).includes('l=tier%3Dbackend') && synced(page), 30000);
  const sent = requests.slice(t0).filter((u) => u.startsWith('/api/v1/pods?'));
  check(sent.some((u) => u.includes('labelSelector=tier=backend') && u.includes('limit=')), `the LIST carries labelSelector (${sent[0]})`);
  await until('the watch', () => requests.slice(t0).some((u) => u.startsWith('/api/v1/pods?') && u.includes('watch=true') && u.includes('labelSelector=tier=backend')), 10000)
    .then(() => check(true, 'the WATCH carries labelSelector'), () => check(false, 'the WATCH carries labelSelector'));
  const initial = new Set(await rowKeys(page));
  check(initial.size > 0 && initial.size < before.size, `the server filtered (${initial.size} of ${before.size})`);
  await convergeTo(page, BASE, '/api/v1/pods?labelSelector=tier%3Dbackend', 'the tier=backend view');

  // Transitions: a pod that leaves the selector (still on the server, now another
  // tier) shows as DELETED; a pod that joins it (one the server had outside it, at a
  // version before the ADDED) as ADDED. The workload also deletes pods, so those
  // outside when the view started may all be gone before one rejoins (it happened
  // when few were outside): candidates are gathered from the server for as long as
  // the test looks.
  const seen = { out: null, in: null };
  const outside = new Map(); // key -> the version at which the server had it outside
  const logLines = () => page.evaluate(() => [...document.querySelectorAll('.log-entry')]
    .map((l) => [l.dataset.kind, l.querySelector('.log-obj').textContent, Number(l.querySelector('.log-rv').textContent.replace('rv ', ''))]));
  const t1 = Date.now();
  while ((!seen.out || !seen.in) && Date.now() - t1 < 120000) {
    const out = await getJson(`${BASE}/api/v1/pods?labelSelector=tier%21%3Dbackend`);
    for (const p of out.items) {
      const key = `${p.metadata.namespace}/${p.metadata.name}`;
      if (!outside.has(key)) outside.set(key, Number(p.metadata.resourceVersion));
    }
    for (const [kind, key, rv] of await logLines()) {
      if (kind === 'DELETED' && !seen.out && initial.has(key)) {
        const [ns, name] = key.split('/');
        try {
          const pod = await getJson(`${BASE}/api/v1/namespaces/${ns}/pods/${name}`);
          if (pod.metadata.labels.tier !== 'backend') seen.out = `${key} (now tier=${pod.metadata.labels.tier})`;
        } catch (_) { /* deleted for real */ }
      }
      if (kind === 'ADDED' && !seen.in && outside.has(key) && rv > outside.get(key)) {
        seen.in = `${key} (outside at rv ${outside.get(key)}, ADDED at rv ${rv})`;
      }
    }
    await sleep(150);
  }
  check(seen.out, `a pod leaving the selector shows as DELETED: ${seen.out}`);
  check(seen.in, `a pod joining the selector shows as ADDED: ${seen.in}`);
  await convergeTo(page, BASE, '/api/v1/pods?labelSelector=tier%3Dbackend', 'the tier=backend view after transitions');
  await page.screenshot({ path: `${ARTIFACTS}/selectors-label.png`, clip: { x: 0, y: 0, width: 1400, height: 700 } });

  // The URL restores selectors and free text.
  await page.goto('about:blank');
  const t2 = requests.length;
  await page.goto(`${BASE}/ui/#r=v1/pods&l=tier%3Dbackend&f=status.phase%3DRunning&q=app`);
  await until('the restored view', () => synced(page), 30000);
  check(await page.evaluate(() => document.getElementById('filter').value) === 'tier=backend field:status.phase=Running app',
    `the box shows the restored query (${await page.evaluate(() => document.getElementById('filter').value)})`);
  check(requests.slice(t2).some((u) => u.startsWith('/api/v1/pods?') && u.includes('labelSelector=tier=backend') && u.includes('fieldSelector=status.phase=Running')),
    'the restored view sends both selectors');
  await convergeTo(page, BASE, '/api/v1/pods?labelSelector=tier%3Dbackend&fieldSelector=status.phase%3DRunning', 'the restored label+field view');

  // Free text filters in the browser across the shown cells (here: the node column,
  // which the server prints in the wide view).
  if (!(await page.evaluate(() => document.getElementById('wide').checked))) await page.click('#wide');
  await until('the NODE column', () => page.evaluate(() => document.querySelector('.row:not(.gone) .td[data-col="node"]')), 10000);
  // A node may hold a single pod, which may leave the view (deleted, finished) in the
  // moment the test types: the word is the node name or prefix (`node-1` also matches
  // node-10..node-19) that the most rows hold, but not all of them, so that several
  // rows match and others are filtered out.
  const shownNodes = await columnCells(page, 'Node');
  const prefixes = [...new Set(shownNodes.flatMap((n) => [n, n.slice(0, -1)]))].filter((w) => /^node-\d+$/.test(w));
  const holding = (w) => shownNodes.filter((n) => n.includes(w)).length;
  const word = prefixes.filter((w) => holding(w) < shownNodes.length).sort((a, b) => holding(b) - holding(a))[0];
  await page.fill('#filter', `tier=backend field:status.phase=Running ${word}`);
  await sleep(300);
  const nodes = await columnCells(page, 'Node');
  check(nodes.length > 0 && nodes.length < shownNodes.length && nodes.every((n) => n.includes(word)),
    `free text matches the node column (${word}: ${nodes.length} of ${shownNodes.length} rows; ${holding(word)} before)`);

  // A selector the server rejects: said next to the box and in the table area.
  const t3 = requests.length;
  await page.fill('#filter', 'field:status.hostIP=10.0.0.1');
  await page.press('#filter', 'Enter');
  const rejected = await until('the rejection', () => page.evaluate(() => document.getElementById('filter-error')?.textContent), 20000).catch(() => null);
  check(rejected && rejected.includes('field label not supported'), `the server's rejection is shown next to the box: ${rejected}`);
  check(requests.slice(t3).some((u) => u.includes('fieldSelector=status.hostIP=10.0.0.1')), 'the rejected selector was sent');
  const title = await page.evaluate(() => document.getElementById('problem-title')?.textContent);
  check(title === 'The server rejected the selector.', `the table area says so (${title})`);
  check(!(await page.evaluate(() => document.body.innerText.includes('Waiting for the first list'))), 'not "Waiting for the first list"');
  await page.screenshot({ path: `${ARTIFACTS}/selectors-rejected.png`, clip: { x: 0, y: 0, width: 1400, height: 400 } });

  // A selector the parser rejects: said, and never sent.
  const t4 = requests.length;
  await page.fill('#filter', 'app in (a');
  await page.press('#filter', 'Enter');
  await sleep(300);
  const invalid = await page.evaluate(() => document.getElementById('filter-error')?.textContent);
  check(invalid && invalid.startsWith('invalid label selector'), `an invalid selector is said: ${invalid}`);
  check(!requests.slice(t4).some((u) => u.includes('labelSelector=app in (a')), 'an invalid selector is not sent');

  // Esc clears the box, the selectors too.
  await page.locator('#scroller').focus();
  await page.keyboard.press('Escape');
  await until('all pods again', async () => !(await hash(page)).includes('l=') && !(await hash(page)).includes('f=') && synced(page), 30000);
  check(true, 'Esc clears selectors and free text');

  // Home, End, ?. The workload adds and deletes pods meanwhile: a row that came
  // above the selected one (or below, for End) after the key was pressed is still
  // flashing as added (`added-a`/`added-b`), and a deleted one is `gone`; the key must
  // have selected the first (last) of the others.
  const selectedAtEdge = (edge) => page.evaluate((edge) => {
    // In the table's order (the row elements are a pool kept in their own order).
    const rows = [...document.querySelectorAll('.row')].sort((a, b) => a.closest('.row').ariaRowIndex - b.closest('.row').ariaRowIndex);
    const at = rows.findIndex((r) => r.classList.contains('selected'));
    const beyond = edge === 'first' ? rows.slice(0, at) : rows.slice(at + 1);
    const older = beyond.filter((r) => !/\b(gone|added-a|added-b)\b/.test(r.className));
    return { key: rows[at]?.dataset.key, ok: at >= 0 && older.length === 0, older: older.map((r) => r.dataset.key) };
  }, edge);
  await page.locator('#scroller').focus();
  await page.keyboard.press('End');
  await sleep(200);
  const end = await selectedAtEdge('last');
  check(end.ok, `End selects the last row (${end.key}; after it: ${end.older})`);
  await page.keyboard.press('Home');
  await sleep(200);
  const home = await selectedAtEdge('first');
  check(home.ok, `Home selects the first row (${home.key}; before it: ${home.older})`);
  await page.keyboard.press('?');
  check(await page.evaluate(() => !!document.getElementById('help')), '? opens the key help');
  const help = await page.evaluate(() => document.getElementById('help').innerText);
  check(help.includes('field:status.phase=Running') && help.includes('Home End'), 'the help shows the keys and the filter syntax');
  await page.screenshot({ path: `${ARTIFACTS}/help.png`, clip: { x: 0, y: 0, width: 1400, height: 900 } });
  await page.keyboard.press('Escape');
  check(await page.evaluate(() => !document.getElementById('help')), 'Esc closes it');

  // The selection and its detail panel live in the URL and come back.
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#detail');
  const last = await page.evaluate(() => document.querySelector('.row.selected')?.dataset.key);
  const link = await hash(page);
  check(link.includes(`sel=${last}`) && link.includes('open=1'), `the URL holds the selection (${link})`);
  await page.goto('about:blank');
  await page.goto(`${BASE}/ui/${link}`);
  // Both come back, each in its own time (the panel with its GET, the row once the
  // restored view holds it and has scrolled to it): waited for together.
  await until('the restored selection', () => page.evaluate(() => Boolean(
    document.getElementById('detail-name')?.textContent && document.querySelector('.row.selected'),
  )), 30000).catch(() => {});
  const restored = await page.evaluate(() => ({
    row: document.querySelector('.row.selected')?.dataset.key,
    detail: document.getElementById('detail-name')?.textContent,
  }));
  const stillThere = await getJson(`${BASE}/api/v1/namespaces/${last.split('/')[0]}/pods`).then((l) => l.items.some((p) => p.metadata.name === last.split('/')[1]));
  if (stillThere) {
    check(restored.row === last && restored.detail === last.split('/')[1], `the selection and its panel are restored (${JSON.stringify(restored)})`);
  } else {
    check(true, `the selected pod was deleted meanwhile (${last}); nothing to restore`);
  }

  // The light theme follows the system's preference.
  const bg = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await bg();
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await bg();
  check(dark === 'rgb(15, 20, 25)' && light === 'rgb(255, 255, 255)', `dark and light themes (${dark} / ${light})`);
  await page.screenshot({ path: `${ARTIFACTS}/light.png`, clip: { x: 0, y: 0, width: 1400, height: 900 } });

  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
  check(problems.dialogs.length === 0, 'no dialogs');
} finally {
  await browser.close();
}
done('selectors');
