// Server-side selectors and the small things users notice, through kubectl proxy
// against the sim (no faults, a churning workload whose pods move in and out of
// `tier=backend` and change phase): the request carries the selector, pods that
// leave or join it show as deletes and adds, the table converges to the server's
// answer for the selector, the URL restores it, and a selector the server or the
// parser rejects is said next to the box. Then Home/End, `?`, the selection restored
// from the URL, and the light theme.
import { launch, openPage, until, check, done, convergeTo, getJson, ARTIFACTS } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const browser = await launch();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const synced = (page) => page.evaluate(() => document.getElementById('status').dataset.synced === 'true');
const hash = (page) => page.evaluate(() => location.hash);
const rowKeys = (page) => page.evaluate(() => [...document.querySelectorAll('.row:not(.gone)')].map((r) => r.dataset.key));

try {
  // The sim creates every pod with tier=backend; its churn moves some to frontend.
  // Wait for a few, so the selector has something to leave out and to take back in.
  const others = await until('pods outside tier=backend', async () => {
    const l = await getJson(`${BASE}/api/v1/pods?labelSelector=tier%21%3Dbackend`);
    return l.items.length >= 5 && l.items.length;
  }, 120000, 500);
  check(others >= 5, `the sim has pods outside tier=backend (${others})`);
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
  // tier) shows as DELETED; a pod that joins it (existing before) as ADDED.
  const seen = { out: null, in: null };
  const t1 = Date.now();
  while ((!seen.out || !seen.in) && Date.now() - t1 < 120000) {
    const lines = await page.evaluate(() => [...document.querySelectorAll('.log-entry')]
      .map((l) => [l.dataset.kind, l.querySelector('.log-obj').textContent]));
    for (const [kind, key] of lines) {
      if (kind === 'DELETED' && !seen.out && initial.has(key)) {
        const [ns, name] = key.split('/');
        try {
          const pod = await getJson(`${BASE}/api/v1/namespaces/${ns}/pods/${name}`);
          if (pod.metadata.labels.tier !== 'backend') seen.out = `${key} (now tier=${pod.metadata.labels.tier})`;
        } catch (_) { /* deleted for real */ }
      }
      if (kind === 'ADDED' && !seen.in && before.has(key) && !initial.has(key)) seen.in = key;
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
  const node = await page.evaluate(() => document.querySelector('.row:not(.gone) .td[data-col="node"]')?.textContent);
  await page.fill('#filter', `tier=backend field:status.phase=Running ${node}`);
  await sleep(300);
  const nodes = await page.evaluate(() => [...document.querySelectorAll('.row:not(.gone) .td[data-col="node"]')].map((c) => c.textContent));
  check(nodes.length > 0 && nodes.every((n) => n.includes(node)), `free text matches the node column (${node}: ${nodes.length} rows)`);

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

  // Home, End, ?.
  await page.locator('#scroller').focus();
  await page.keyboard.press('End');
  const last = await page.evaluate(() => document.querySelector('.row.selected')?.dataset.key);
  const rows = await rowKeys(page);
  check(last === rows[rows.length - 1], `End selects the last row (${last})`);
  await page.keyboard.press('Home');
  await sleep(200);
  const first = await page.evaluate(() => document.querySelector('.row.selected')?.dataset.key);
  const top = await rowKeys(page);
  check(first === top[0], `Home selects the first row (${first})`);
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
  const link = await hash(page);
  check(link.includes(`sel=${last}`) && link.includes('open=1'), `the URL holds the selection (${link})`);
  await page.goto('about:blank');
  await page.goto(`${BASE}/ui/${link}`);
  await until('the restored selection', () => page.evaluate(() => document.getElementById('detail-name')?.textContent), 30000).catch(() => {});
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
