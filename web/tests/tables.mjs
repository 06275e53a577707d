// The server's tables in the app, through kubectl proxy against the sim (calm,
// churning): the headers are the server's columns (kubectl's, from kubernetes
// `pkg/printers/internalversion/printers.go` for built-ins and the CRD's
// additionalPrinterColumns), the cells converge to the server's own Table answer at
// the same resourceVersion, `wide` adds the priority > 0 columns and survives a
// reload, headers describe their column on hover, sorting follows the column's type,
// status cells are toned, the detail panel shows the server's object as YAML and
// JSON, and a Secret's values are masked until revealed one by one.
import { spawnSync } from 'node:child_process';
import { launch, openPage, until, check, done, getJson, ARTIFACTS } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const browser = await launch();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function getTable(path) {
  const r = await fetch(`${BASE}${path}`, { headers: { Accept: TABLE } });
  if (!r.ok) throw new Error(`GET ${path}: ${r.status}`);
  const t = await r.json();
  if (t.kind !== 'Table') throw new Error(`GET ${path}: a ${t.kind}, not a Table`);
  return t;
}

const synced = (page) => page.evaluate(() => document.getElementById('status').dataset.synced === 'true'
  && document.getElementById('status').dataset.phase === 'watching');
const headers = (page) => page.evaluate(() => [...document.querySelectorAll('.th .th-name')].map((h) => h.innerText.trim()));

/** The shown rows: key -> { header name (upper case) -> cell text }. */
const shownRows = (page) => page.evaluate(() => {
  const names = [...document.querySelectorAll('.th')].map((h) => h.querySelector('.th-name').innerText.trim());
  return [...document.querySelectorAll('.row:not(.gone)')].map((r) => ({
    key: r.dataset.key,
    cells: Object.fromEntries([...r.querySelectorAll('.td')].map((c, i) => [names[i], c.textContent])),
  }));
});

/** A cell's text as compared: time columns out, "(5m ago)" out of Restarts. */
const comparable = (name, text) => (name === 'RESTARTS' ? String(text).replace(/\s*\(.*ago\)$/, '') : String(text));

/** kubectl's text of a cell value. */
const cellText = (v) => (v === null || v === undefined ? '<none>' : typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));

/**
 * Opens `view`, waits for the headers to be `want` (upper case, as shown), then for
 * the cells of every shown row to equal the server's Table at the status bar's
 * resourceVersion (Exact), time columns left out.
 */
async function viewConverges(page, view, listPath, want, what, namespaced) {
  await page.goto(`${BASE}/ui/#${view}`);
  await until(`${what}: the first sync`, () => synced(page), 60000);
  const got = await until(`${what}: the server's headers`, async () => {
    const h = await headers(page);
    return h.join('|') === want.join('|') && h;
  }, 20000).catch(async () => headers(page));
  check(got.join('|') === want.join('|'), `${what}: headers ${got.join(' ')} (want ${want.join(' ')})`);
  let last = '';
  for (let i = 0; i < 80; i++) {
    const rv = await page.evaluate(() => document.getElementById('status').dataset.rv);
    const rows = await shownRows(page);
    const rv2 = await page.evaluate(() => document.getElementById('status').dataset.rv);
    if (rv && rv === rv2 && rows.length > 0) {
      try {
        const sep = listPath.includes('?') ? '&' : '?';
        const t = await getTable(`${listPath}${sep}resourceVersion=${rv}&resourceVersionMatch=Exact`);
        const defs = t.columnDefinitions;
        const truth = new Map(t.rows.map((r) => [`${r.object.metadata.namespace ?? ''}/${r.object.metadata.name}`, r]));
        const bad = [];
        for (const row of rows) {
          const server = truth.get(row.key);
          if (!server) { bad.push(`${row.key} not on the server`); continue; }
          if (namespaced && row.cells.NAMESPACE !== server.object.metadata.namespace) bad.push(`${row.key} NAMESPACE`);
          defs.forEach((d, j) => {
            const name = d.name.toUpperCase();
            if (!(name in row.cells) || d.name === 'Age' || d.name === 'Last Seen' || d.type === 'date') return;
            if (comparable(name, row.cells[name]) !== comparable(name, cellText(server.cells[j]))) {
              bad.push(`${row.key} ${name}: ${row.cells[name]} vs ${cellText(server.cells[j])}`);
            }
          });
        }
        const total = Number(await page.evaluate(() => document.getElementById('total-count').textContent));
        last = `rv ${rv}: ${rows.length} rows shown, ${total} held, ${t.rows.length} on the server; ${bad.slice(0, 3).join('; ')}`;
        if (!bad.length && total === t.rows.length) {
          check(true, `${what}: cells converge to the server's Table (${last})`);
          return rows;
        }
      } catch (e) {
        last = String(e);
      }
    }
    await sleep(250);
  }
  check(false, `${what}: cells converge to the server's Table (${last})`);
  return [];
}

try {
  const { page, problems } = await openPage(browser, { viewport: { width: 1600, height: 2600 } });

  // Pods: exactly kubectl get pods' columns; NAMESPACE first across namespaces.
  await viewConverges(page, 'r=v1/pods', '/api/v1/pods',
    ['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'], 'pods', true);
  await page.screenshot({ path: `${ARTIFACTS}/tables-pods.png`, clip: { x: 0, y: 0, width: 1600, height: 900 } });
  // Each header says what its column is (the server's description).
  const podTable = await getTable('/api/v1/pods?limit=1');
  const titles = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.th')].map((h) => [h.dataset.col, h.title])));
  const described = podTable.columnDefinitions.filter((d) => d.priority === 0).every((d) => titles[d.name.toLowerCase()] === d.description);
  check(described, 'each header holds its column\'s description as its title');
  // A cell's tooltip is its text (it may be cut off), given as the pointer enters it.
  const cell = page.locator('.row .td[data-col="name"]').first();
  await cell.hover();
  const [nameTip, nameText] = await cell.evaluate((c) => [c.getAttribute('title'), c.textContent]);
  check(nameText !== '' && nameTip === nameText, `a name cell's tooltip is its text (${nameTip})`);
  // Status cells are toned by their words; class names only from [a-z0-9-].
  const tones = await page.evaluate(() => [...document.querySelectorAll('.row .td[data-col="status"]')].map((c) => [c.textContent, c.className]));
  const running = tones.filter(([t]) => t === 'Running');
  check(running.length > 0 && running.every(([, c]) => c.split(' ').includes('tone-ok')), `Running is toned ok (${running.length})`);
  check(tones.every(([, c]) => /^[a-z0-9 -]+$/.test(c)), 'cell classes are built from [a-z0-9-] only');

  // Sorting by a column's type: RESTARTS numerically, descending on a second click.
  await page.click('button.th[data-col="restarts"]');
  await page.click('button.th[data-col="restarts"]');
  await sleep(300);
  check((await page.evaluate(() => location.hash)).includes('sort=-restarts'), 'the sort is in the URL');
  const restarts = await page.evaluate(() => [...document.querySelectorAll('.row:not(.gone) .td[data-col="restarts"]')].sort((a, b) => a.closest('.row').ariaRowIndex - b.closest('.row').ariaRowIndex).map((c) => parseInt(c.textContent, 10)));
  check(restarts.length > 1 && restarts.every((v, i) => i === 0 || restarts[i - 1] >= v), `rows sort by restarts as numbers, descending (${restarts.slice(0, 8).join(',')}…)`);
  // AGE: youngest first, by creationTimestamp.
  await page.click('button.th[data-col="age"]');
  await sleep(300);
  const order = (await shownRows(page)).map((r) => r.key);
  const podList = await getJson(`${BASE}/api/v1/pods`);
  const created = new Map(podList.items.map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, Date.parse(p.metadata.creationTimestamp)]));
  const times = order.map((k) => created.get(k)).filter((t) => t !== undefined);
  check(times.length > 1 && times.every((t, i) => i === 0 || times[i - 1] >= t), 'AGE sorts by creationTimestamp, youngest first');
  // Ages count on: the text re-renders from the timestamp, not the server's list-time text.
  const ageBefore = await page.evaluate(() => document.querySelector('.row .td[data-col="age"]')?.textContent);
  check(/^\d+(s|m|h|d|y)/.test(ageBefore || ''), `ages read like kubectl's (${ageBefore})`);

  // Wide: adds the priority-1 columns, kept in the URL across a reload.
  await page.click('#wide');
  await until('the wide columns', async () => (await headers(page)).length === 10, 5000).catch(() => {});
  check((await headers(page)).join('|') === 'NAMESPACE|NAME|READY|STATUS|RESTARTS|AGE|IP|NODE|NOMINATED NODE|READINESS GATES',
    `wide adds kubectl's -o wide columns (${(await headers(page)).join(' ')})`);
  check((await page.evaluate(() => location.hash)).includes('wide=1'), 'wide is in the URL');
  await page.reload();
  await until('the reloaded wide view', () => synced(page), 60000);
  await until('wide headers after reload', async () => (await headers(page)).length === 10, 20000).catch(() => {});
  check((await headers(page)).includes('NOMINATED NODE') && await page.evaluate(() => document.getElementById('wide').checked),
    'wide survives a reload');
  await viewConverges(page, 'r=v1/pods&wide=1', '/api/v1/pods',
    ['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'], 'pods -o wide', true);

  // Free text filters over the shown cells (here: a status word).
  await page.fill('#filter', 'running');
  await sleep(400);
  const statuses = await page.evaluate(() => [...document.querySelectorAll('.row:not(.gone) .td[data-col="status"]')].map((c) => c.textContent));
  check(statuses.length > 0 && statuses.every((s) => s.toLowerCase().includes('running')), `free text filters on the STATUS cells (${statuses.length})`);
  await page.fill('#filter', '');

  // Other kinds: services, nodes (cluster-scoped: no NAMESPACE), events, the CRD.
  const ns = podList.items[0].metadata.namespace;
  await viewConverges(page, 'r=v1/services', '/api/v1/services',
    ['NAMESPACE', 'NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE'], 'services', true);
  await viewConverges(page, `r=v1/services&ns=${ns}`, `/api/v1/namespaces/${ns}/services`,
    ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE'], `services in ${ns}`, false);
  await viewConverges(page, 'r=v1/nodes', '/api/v1/nodes',
    ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'], 'nodes', false);
  const nodeTones = await page.evaluate(() => [...document.querySelectorAll('.row .td[data-col="status"]')].map((c) => [c.textContent, c.className]));
  check(nodeTones.some(([t, c]) => t === 'Ready' && c.includes('tone-ok')), 'a Ready node is toned ok');
  const eventTable = await getTable(`/api/v1/namespaces/${ns}/events?limit=1`);
  const eventHeaders = eventTable.columnDefinitions.filter((d) => d.priority === 0).map((d) => d.name.toUpperCase());
  check(eventHeaders.join('|') === 'LAST SEEN|TYPE|REASON|OBJECT|MESSAGE', `the server prints events as kubectl (${eventHeaders.join(' ')})`);
  await viewConverges(page, `r=v1/events&ns=${ns}`, `/api/v1/namespaces/${ns}/events`, eventHeaders, `events in ${ns}`, false);
  const widgetTable = await getTable('/apis/kubelive.dev/v1/widgets?limit=1');
  const defs = widgetTable.columnDefinitions;
  check(defs.some((d) => d.priority > 0) && defs.some((d) => d.type === 'integer') && defs.some((d) => d.type === 'date'),
    `the CRD prints an integer, a date and a priority-1 column (${defs.map((d) => `${d.name}:${d.type}:${d.priority}`).join(' ')})`);
  const narrow = ['NAMESPACE', ...defs.filter((d) => d.priority === 0).map((d) => d.name.toUpperCase())];
  const wide = ['NAMESPACE', ...defs.map((d) => d.name.toUpperCase())];
  await viewConverges(page, 'r=kubelive.dev/v1/widgets', '/apis/kubelive.dev/v1/widgets', narrow, 'widgets', true);
  await viewConverges(page, 'r=kubelive.dev/v1/widgets&wide=1', '/apis/kubelive.dev/v1/widgets', wide, 'widgets -o wide', true);
  // The integer column sorts as numbers.
  const intCol = defs.find((d) => d.type === 'integer');
  const intId = intCol.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  await page.click(`button.th[data-col="${intId}"]`);
  await sleep(300);
  const ints = await page.evaluate((id) => [...document.querySelectorAll(`.row:not(.gone) .td[data-col="${id}"]`)].sort((a, b) => a.closest('.row').ariaRowIndex - b.closest('.row').ariaRowIndex).map((c) => Number(c.textContent)), intId);
  check(ints.length > 1 && ints.every((v, i) => i === 0 || ints[i - 1] <= v || Number.isNaN(v)), `${intCol.name} sorts as numbers (${ints.join(',')})`);

  // The detail panel: the whole object, fetched, as YAML (equal to the server's
  // object) and as JSON.
  // The oldest pod now on the server; the churn deletes pods at random, so one that goes
  // during the comparison (its GET answers 404) makes way for the oldest one then.
  const yamlParser = spawnSync('python3', ['-c', 'import yaml'], { encoding: 'utf8' }).status === 0;
  let pod = '';
  let same = false;
  let why = '';
  for (let attempt = 0; attempt < 4 && !same; attempt++) {
    const now = (await getJson(`${BASE}/api/v1/pods`)).items
      .sort((a, b) => Date.parse(a.metadata.creationTimestamp) - Date.parse(b.metadata.creationTimestamp))[0];
    const key = `${now.metadata.namespace}/${now.metadata.name}`;
    await page.goto(`${BASE}/ui/#r=v1/pods&sel=${encodeURIComponent(key)}&open=1`);
    if (!(await page.waitForSelector('#detail-text', { timeout: 15000 }).then(() => true, () => false))) {
      why = `no detail panel for ${key}`;
      continue;
    }
    pod = key;
    const [pns, pname] = key.split('/');
    for (let i = 0; i < 40 && !same; i++) {
      // The panel refetches when the row's version moves; compare at one version.
      const shown = await page.evaluate(() => ({ yaml: document.getElementById('detail-text')?.textContent, format: document.getElementById('detail-text')?.dataset.format }));
      const r = await fetch(`${BASE}/api/v1/namespaces/${pns}/pods/${pname}`);
      if (r.status === 404) { why = `${key} deleted meanwhile`; break; }
      if (!r.ok) throw new Error(`GET ${key}: ${r.status} ${(await r.text()).slice(0, 200)}`);
      const server = await r.json();
      if (shown.format !== 'yaml' || !shown.yaml) { why = 'no YAML shown'; await sleep(250); continue; }
      if (yamlParser) {
        const y = spawnSync('python3', ['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))'], { input: shown.yaml, encoding: 'utf8' });
        if (y.status !== 0) { why = `YAML does not parse: ${y.stderr.slice(0, 300)}`; break; }
        same = JSON.stringify(JSON.parse(y.stdout)) === JSON.stringify(sortKeys(server));
        why = same ? '' : `rv ${server.metadata.resourceVersion}: differs`;
      } else {
        same = shown.yaml.includes(`\n  name: ${pname}\n`) && shown.yaml.includes(`resourceVersion: '${server.metadata.resourceVersion}'`);
        why = 'python3 with PyYAML not installed: checked the name and version lines only';
      }
      if (!same) await sleep(250);
    }
    if (why.startsWith('YAML does not parse')) break;
  }
  check(pod !== '', `the detail panel shows a fetched object (${pod})`);
  const pname = pod.split('/')[1];
  check(same, `the YAML detail equals the server's object (${why || 'parsed and compared'})`);
  await page.screenshot({ path: `${ARTIFACTS}/tables-detail-yaml.png`, clip: { x: 0, y: 0, width: 1600, height: 900 } });
  await page.click('#format-json');
  const json = await page.evaluate(() => document.getElementById('detail-text')?.textContent);
  let parsed = null;
  try { parsed = JSON.parse(json); } catch (_) {}
  check(parsed && parsed.metadata.name === pname && parsed.kind === 'Pod' && parsed.spec, 'the JSON switch shows the whole object (spec included) as JSON');

  // A Secret: values masked, never in the DOM until revealed, one by one.
  await page.goto(`${BASE}/ui/#r=v1/secrets&ns=${ns}&sel=${encodeURIComponent(`${ns}/db-credentials`)}&open=1`);
  // The hash changes on the same page: the panel shows the pod above until the
  // Secret's GET answers, so wait for the Secret's masks before reading the DOM.
  const secretMasks = () => page.evaluate(() => [...document.querySelectorAll('[data-secret]')].map((b) => b.dataset.secret));
  await until('the panel to show the Secret', async () => (await secretMasks()).length >= 2, 30000, 100).catch(() => {});
  const secret = await getJson(`${BASE}/api/v1/namespaces/${ns}/secrets/db-credentials`);
  const values = Object.values(secret.data || {});
  const dom = await page.evaluate(() => document.documentElement.outerHTML);
  check(values.length >= 2 && values.every((v) => !dom.includes(v)), `no Secret value is in the DOM (${values.length} masked)`);
  const masks = await secretMasks();
  check(masks.includes('data.password') && masks.includes('data.username'), `each value has its mask (${masks.join(', ')})`);
  await page.click('[data-secret="data.password"]');
  const after = await page.evaluate(() => document.getElementById('detail-text').textContent);
  check(after.includes(`password: ${secret.data.password}`) && !after.includes(secret.data.username), 'a click reveals that value only');
  await page.screenshot({ path: `${ARTIFACTS}/tables-secret.png`, clip: { x: 0, y: 0, width: 1600, height: 900 } });

  // A failed GET is said in the panel (the object is gone by the time it is asked).
  await page.route('**/api/v1/namespaces/*/pods/*', (route) => route.fulfill({
    status: 403, contentType: 'application/json',
    body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "x" is forbidden: User "dev" cannot get resource "pods"', reason: 'Forbidden', code: 403 }),
  }));
  // The pod opened above may be gone by now (the churn deletes pods): the oldest one
  // now on the server is opened, again if it went in the meantime.
  let err = '';
  for (let attempt = 0; attempt < 4 && !err; attempt++) {
    const now = (await getJson(`${BASE}/api/v1/pods`)).items
      .sort((a, b) => Date.parse(a.metadata.creationTimestamp) - Date.parse(b.metadata.creationTimestamp))[0];
    await page.goto(`${BASE}/ui/#r=v1/pods&sel=${encodeURIComponent(`${now.metadata.namespace}/${now.metadata.name}`)}&open=1`);
    err = await until('the GET error in the panel', () => page.evaluate(() => document.getElementById('detail-error')?.textContent), 15000).catch(() => '');
  }
  check(err.includes('403') && err.includes('forbidden'), `a refused GET is said in the panel (${err})`);
  await page.unroute('**/api/v1/namespaces/*/pods/*');

  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
  check(problems.console.length === 0 || problems.console.every((m) => /403|Forbidden/.test(m)), `no console errors (${problems.console.join('; ')})`);
} finally {
  await browser.close();
}
done('tables');

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}
