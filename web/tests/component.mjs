// <kubelive-table> (issue 14), from the npm package in dist/npm through the real
// kubectl proxy against a churning sim under faults: three elements on one page (pods
// of ns-0 with a label selector, deployments everywhere, every pod in a short box)
// load the wasm once, converge to the server's own Table (but for time columns) with
// kubectl's headers (NAMESPACE first across namespaces); only visible rows are in the
// DOM, keyed (a row in view keeps its element across changes, rows scrolled into view
// reuse elements, a held click under churn opens the row pressed); headers sort by
// type and the filter attribute filters, both through the watcher's view (the table
// model); an attribute change restarts and converges; removing an
// element stops its watcher and aborts its requests; the DOM events bubble out of the
// shadow root; a selector the server rejects is a kubelive-error with its code; cells
// are text; the CSS custom properties style it.
import { execFileSync } from 'node:child_process';
import { ARTIFACTS, check, done, until } from './lib.mjs';
import { launchWithGc, tableConverges } from './watcherlib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const PAGE = `<!doctype html><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'">
<title>kubelive-table tests</title>
<script>
  window.events = [];
  window.violations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));
  for (const type of ['kubelive-change', 'kubelive-status', 'kubelive-synced', 'kubelive-error']) {
    document.addEventListener(type, (e) => window.events.push({ type, id: e.target.id, composed: e.composed, bubbles: e.bubbles, detail: e.detail }));
  }
</script>
<kubelive-table id="pods" resource="pods" namespace="ns-0" label-selector="tier=backend"></kubelive-table>
<kubelive-table id="deploys" resource="/apis/apps/v1/deployments"></kubelive-table>
<kubelive-table id="all" resource="pods"></kubelive-table>
<script type="module">
  // Styled through its custom properties (set with CSSOM: the CSP allows no inline styles).
  const all = document.getElementById('all');
  all.style.setProperty('--kubelive-height', '150px');
  all.style.setProperty('--kubelive-row-height', '30px');
  await import('/ui/npm/component.js');
</script>`;

/** kubectl's header line for `args`, as fields. */
function kubectlHeader(args) {
  // The sim injects faults (a 500 now and then): kubectl is asked again.
  for (let attempt = 1; ; attempt++) {
    try {
      const out = execFileSync('kubectl', ['--server', BASE, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      return out.split('\n')[0].trim().split(/\s{2,}/);
    } catch (e) {
      if (attempt >= 5) throw e;
    }
  }
}

/** In the page: `{ rv, rows, columns }` of element `id`'s watcher while synced and watching. */
const reader = (id) => new Function(`
  const w = document.getElementById(${JSON.stringify(id)}).watcher;
  if (!w) return null;
  const s = w.status();
  if (!s.synced || s.phase !== 'watching' || !w.columns()) return null;
  return { rv: s.resourceVersion, rows: w.snapshot().map((r) => ({ cells: r.cells, metadata: r.metadata })), columns: w.columns() };
`);

/** In the page: the element's header texts and rendered rows (cells' text). */
function dom(id) {
  const root = document.getElementById(id).shadowRoot;
  return {
    headers: [...root.querySelectorAll('[part~=header-cell]')].map((h) => h.textContent),
    rows: [...root.querySelectorAll('[part~=row]')].map((r) => [...r.children].map((c) => c.textContent)),
    status: root.querySelector('[part~=status]').textContent,
    rowHeight: root.querySelector('[part~=row]')?.getBoundingClientRect().height ?? 0,
    empty: root.querySelector('[part~=empty]') !== null,
  };
}

const browser = await launchWithGc();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1200 } });
  const page = await context.newPage();
  const problems = { errors: [], console: [], wasm: 0, requests: [], failed: [] };
  page.on('pageerror', (e) => problems.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') problems.console.push(m.text()); });
  page.on('request', (r) => {
    if (r.url().endsWith('.wasm')) problems.wasm += 1;
    problems.requests.push({ url: r.url(), at: Date.now() });
  });
  page.on('requestfailed', (r) => problems.failed.push({ url: r.url(), error: r.failure()?.errorText, at: Date.now() }));
  const url = `${BASE}/ui/component-test.html`;
  await page.route(url, (route) => route.fulfill({ contentType: 'text/html', body: PAGE }));
  await page.goto(url);

  await tableConverges(page, BASE, '/api/v1/namespaces/ns-0/pods?labelSelector=tier%3Dbackend', reader('pods'),
    "pods of ns-0 with tier=backend: the element's rows equal the server's Table");
  await tableConverges(page, BASE, '/apis/apps/v1/deployments', reader('deploys'),
    "deployments everywhere: the element's rows equal the server's Table");
  await tableConverges(page, BASE, '/api/v1/pods', reader('all'), "every pod: the element's rows equal the server's Table");
  check(problems.wasm === 1, `three elements, one wasm load (${problems.wasm})`);

  // Headers as kubectl prints them (upper-cased by CSS, as kubectl does by hand).
  const podHeaders = kubectlHeader(['get', 'pods', '-n', 'ns-0', '-l', 'tier=backend']);
  const deployHeaders = kubectlHeader(['get', 'deployments', '-A']);
  const upper = (h) => h.map((x) => x.toUpperCase());
  let pods = await page.evaluate(dom, 'pods');
  const deploys = await page.evaluate(dom, 'deploys');
  check(JSON.stringify(upper(pods.headers)) === JSON.stringify(podHeaders), `pod headers equal kubectl's: ${podHeaders.join(' ')} / ${upper(pods.headers).join(' ')}`);
  check(JSON.stringify(upper(deploys.headers)) === JSON.stringify(deployHeaders), `deployment headers equal kubectl get -A's: ${deployHeaders.join(' ')} / ${upper(deploys.headers).join(' ')}`);

  // The rendered rows are the snapshot's, in namespace/name order, Age counting on.
  const rendered = await page.evaluate(() => {
    const el = document.getElementById('deploys');
    const rows = el.watcher.snapshot();
    const cols = el.shownColumns;
    const root = el.shadowRoot;
    const domRows = [...root.querySelectorAll('[part~=row]')].map((r) => [...r.children].map((c) => c.textContent));
    const expect = rows.map((r) => cols.map((c) => {
      if (c.name === 'Namespace' && c.format === '') return r.metadata.namespace;
      const i = el.watcher.columns().indexOf(c);
      return c.name === 'Age' ? '~' : r.cells[i] === null ? '<none>' : String(r.cells[i]);
    }));
    const mask = (row) => row.map((t, i) => (cols[i].name === 'Age' ? '~' : t));
    return { same: JSON.stringify(domRows.map(mask)) === JSON.stringify(expect.slice(0, domRows.length)), n: domRows.length, held: rows.length,
      age: domRows.map((r) => r[cols.findIndex((c) => c.name === 'Age')]) };
  });
  check(rendered.same && rendered.n === rendered.held, `the deployments rendered are the snapshot's, in order (${rendered.n} of ${rendered.held})`);
  check(rendered.age.every((a) => /^\d+(s|m|h|d|y)/.test(a)), `Age is a kubectl duration (${rendered.age.slice(0, 3).join(', ')})`);

  // A row click: kubelive-select, then the object itself below the table (a GET); a
  // page that cancels the event gets no detail.
  const detail = await page.evaluate(async () => {
    const el = document.getElementById('deploys');
    const root = el.shadowRoot;
    const wait = (f) => new Promise((resolve) => {
      const t = setInterval(() => { if (f()) { clearInterval(t); resolve(true); } }, 50);
      setTimeout(() => { clearInterval(t); resolve(false); }, 10000);
    });
    const body = () => root.querySelector('[part~=detail-body]');
    const cancel = (e) => e.preventDefault();
    document.addEventListener('kubelive-select', cancel, { once: true });
    root.querySelector('[part~=row]').click();
    const cancelled = root.querySelector('[part~=detail]').hidden;
    // The sim injects 500s and 429s: the detail then says so, and a click asks again.
    let row;
    for (let i = 0; i < 5; i++) {
      row = root.querySelector('[part~=row]:nth-child(2)');
      row.querySelector('[part~=cell]:nth-child(2)').click();
      await wait(() => body() && body().textContent !== 'loading…');
      if (body().textContent.startsWith('{')) break;
    }
    const object = JSON.parse(body().textContent);
    const shown = { key: root.querySelector('[part~=detail]').dataset.key, kind: object.kind, name: `${object.metadata.namespace}/${object.metadata.name}`, rowKey: row.dataset.key };
    root.querySelector('[part~=detail-close]').click();
    return { cancelled, ...shown, closed: root.querySelector('[part~=detail]').hidden };
  });
  check(detail.cancelled, 'a cancelled kubelive-select shows no detail');
  check(detail.kind === 'Deployment' && detail.name === detail.rowKey && detail.key === detail.rowKey,
    `a row click shows the object, fetched (${detail.kind} ${detail.name})`);
  check(detail.closed, 'the detail closes');

  // A Secret's detail: its keys, never its values.
  const secret = await page.evaluate(async () => {
    const el = document.createElement('kubelive-table');
    el.id = 'secrets';
    el.setAttribute('resource', 'secrets');
    document.body.append(el);
    const wait = (f) => new Promise((resolve) => {
      const t = setInterval(() => { if (f()) { clearInterval(t); resolve(true); } }, 50);
      setTimeout(() => { clearInterval(t); resolve(false); }, 20000);
    });
    const root = el.shadowRoot;
    await wait(() => root.querySelector('[part~=row]'));
    const body = () => root.querySelector('[part~=detail-body]');
    let row;
    for (let i = 0; i < 5; i++) {
      row = root.querySelector('[part~=row]');
      row.click();
      await wait(() => body() && body().textContent !== 'loading…');
      if (body().textContent.startsWith('{')) break;
    }
    const shown = JSON.parse(body().textContent);
    const [ns, name] = row.dataset.key.split('/');
    let truth = {};
    for (let i = 0; i < 5 && !truth.data; i++) {
      const r = await fetch(`/api/v1/namespaces/${ns}/secrets/${name}`);
      if (r.ok) truth = await r.json();
    }
    el.remove();
    return { kind: shown.kind, keys: Object.keys(shown.data ?? {}), values: Object.values(shown.data ?? {}), truthKeys: Object.keys(truth.data ?? {}),
      leaked: Object.values(truth.data ?? {}).some((v) => body().textContent.includes(v)) };
  });
  check(secret.kind === 'Secret' && secret.keys.length > 0 && secret.keys.join() === secret.truthKeys.join()
    && secret.values.every((v) => v === '••••••') && !secret.leaked, `a Secret's detail shows its keys (${secret.keys.join(', ')}) and masks every value`);

  // Age as kubectl prints it: HumanDuration
  // (staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go).
  const durations = await page.evaluate(async () => {
    const { humanDuration } = await import('/ui/npm/component.js');
    return [-5, -1, 0, 119, 120, 125, 599, 600, 10799, 10800, 3 * 3600 + 5 * 60, 8 * 3600, 47 * 3600, 48 * 3600,
      50 * 3600, 8 * 86400, 729 * 86400, 730 * 86400, 731 * 86400, 8 * 365 * 86400].map(humanDuration);
  });
  const kubectlDurations = ['<invalid>', '0s', '0s', '119s', '2m', '2m5s', '9m59s', '10m', '179m', '3h', '3h5m', '8h', '47h', '2d',
    '2d2h', '8d', '729d', '2y', '2y1d', '8y'];
  check(JSON.stringify(durations) === JSON.stringify(kubectlDurations), `Age durations are kubectl's HumanDuration (${durations.join(' ')})`);

  // Virtualised: only the rows in view (and a few beyond) are in the DOM.
  const all = await page.evaluate(() => {
    const el = document.getElementById('all');
    const root = el.shadowRoot;
    const body = root.querySelector('[part~=body]');
    const before = root.querySelectorAll('[part~=row]').length;
    body.scrollTop = body.scrollHeight;
    return { before, held: el.watcher.size, height: body.getBoundingClientRect().height };
  });
  await sleep(300);
  const allAfter = await page.evaluate(dom, 'all');
  const lastName = await page.evaluate(() => {
    const rows = document.getElementById('all').watcher.snapshot();
    return rows[rows.length - 1].metadata.name;
  });
  check(all.held > 30 && all.before < all.held && all.before <= Math.ceil(150 / 30) + 2 * 8 + 1,
    `only visible rows are in the DOM (${all.before} of ${all.held}, box ${all.height}px)`);
  check(allAfter.rows.some((r) => r.includes(lastName)), `scrolled to the end, the last row is rendered (${lastName})`);
  check(Math.abs(allAfter.rowHeight - 30) < 0.5, `--kubelive-row-height styles the rows (${allAfter.rowHeight}px)`);

  // Keyed rows: under the churn, a row whose object stays in view keeps its element and
  // its cells' elements (tagged here with JS properties) across changes; rows scrolled
  // into view reuse the elements of rows scrolled out.
  const frames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.evaluate(() => {
    const root = document.getElementById('all').shadowRoot;
    root.querySelector('[part~=body]').scrollTop = 0;
  });
  await frames();
  const tagged = await page.evaluate(() => {
    const root = document.getElementById('all').shadowRoot;
    window.rowElements = new WeakSet();
    window.changesOfAll = () => window.events.filter((e) => e.type === 'kubelive-change' && e.id === 'all').length;
    window.changesBefore = window.changesOfAll();
    window.keysBefore = new Set();
    // DOM churn over the changes, for the message: elements inserted (or moved) and texts set.
    // And the keys that left the view meanwhile (seen after each render, whole): their
    // rows may come back in recycled elements.
    window.churn = { added: 0, texts: 0 };
    window.keysLeft = new Set();
    const box = root.querySelector('[part~=rows]');
    window.churnObserver = new MutationObserver((records) => {
      for (const m of records) {
        window.churn.added += [...m.addedNodes].filter((n) => n.nodeType === Node.ELEMENT_NODE).length;
        if (m.type === 'childList' && m.target.getAttribute?.('part') === 'cell') window.churn.texts += 1;
      }
      const inView = new Set([...box.children].map((r) => r.dataset.key));
      for (const k of window.keysBefore) if (!inView.has(k)) window.keysLeft.add(k);
    });
    window.churnObserver.observe(box, { childList: true, subtree: true });
    for (const row of root.querySelectorAll('[part~=row]')) {
      row.kubeliveKey = row.dataset.key;
      window.keysBefore.add(row.dataset.key);
      row.kubeliveCells = [...row.children];
      row.kubeliveTexts = row.kubeliveCells.map((c) => c.textContent);
      window.rowElements.add(row);
    }
    return root.querySelectorAll('[part~=row]').length;
  });
  await until('ten changes of every pod', () => page.evaluate(() => window.changesOfAll() - window.changesBefore >= 10), 60000);
  await sleep(1100); // and an Age tick
  await frames();
  const identity = await page.evaluate(() => {
    const root = document.getElementById('all').shadowRoot;
    const rows = [...root.querySelectorAll('[part~=row]')];
    // Rows whose object was in view before and all along: each must be the element it was.
    const stayed = rows.filter((r) => window.keysBefore.has(r.dataset.key) && !window.keysLeft.has(r.dataset.key));
    const kept = stayed.filter((r) => r.kubeliveKey === r.dataset.key);
    return {
      rows: rows.length,
      stayed: stayed.length,
      kept: kept.length,
      cellsKept: kept.every((r) => r.kubeliveCells.every((c, i) => r.children[i] === c)),
      textChanged: kept.filter((r) => r.kubeliveCells.some((c, i) => c.textContent !== r.kubeliveTexts[i])).length,
      changes: window.changesOfAll() - window.changesBefore,
      churn: (window.churnObserver.disconnect(), window.churn),
      left: window.keysLeft.size,
    };
  });
  check(identity.stayed >= 5 && identity.kept === identity.stayed && identity.cellsKept,
    `rows that stayed in view kept their elements and cells over ${identity.changes} changes (${identity.kept} of ${identity.stayed} of ${tagged}, ${identity.left} out of view meanwhile; ${identity.textChanged} with new text; DOM: ${identity.churn.added} elements inserted or moved, ${identity.churn.texts} cell texts set)`);
  const recycled = await page.evaluate(async () => {
    const root = document.getElementById('all').shadowRoot;
    const body = root.querySelector('[part~=body]');
    const before = root.querySelectorAll('[part~=row]').length;
    body.scrollTop = 20 * 30;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const rows = [...root.querySelectorAll('[part~=row]')];
    return { before, after: rows.length, reused: rows.filter((r) => window.rowElements.has(r)).length, moved: rows.filter((r) => r.kubeliveKey !== r.dataset.key).length };
  });
  check(recycled.after === recycled.before && recycled.reused === recycled.after && recycled.moved > 0,
    `rows scrolled into view reuse the elements of rows scrolled out (${recycled.reused} of ${recycled.after} reused, ${recycled.moved} now other rows)`);

  // Clicks while the sim churns: a press held as a person holds it (150 ms, renders
  // between press and release), on ten rows in view; each opens the row pressed.
  await page.evaluate(() => {
    const root = document.getElementById('all').shadowRoot;
    window.presses = [];
    root.addEventListener('pointerdown', (e) => {
      window.presses.push({ key: e.target.closest('[data-key]')?.dataset.key, changes: window.changesOfAll(), selected: null });
    }, true);
    // Whether the object pressed still existed when its click came (a deleted one opens nothing).
    root.addEventListener('click', () => {
      const press = window.presses[window.presses.length - 1];
      const el = document.getElementById('all');
      if (press) press.exists = el.watcher.snapshot().some((r) => `${r.metadata.namespace}/${r.metadata.name}` === press.key);
    });
    document.addEventListener('kubelive-select', (e) => {
      const press = window.presses[window.presses.length - 1];
      if (press && e.target.id === 'all') press.selected = `${e.detail.row.metadata.namespace}/${e.detail.row.metadata.name}`;
    });
  });
  const opened = [];
  for (let n = 0; n < 10; n++) {
    const at = await page.evaluate((n) => {
      const el = document.getElementById('all');
      el.scrollIntoView({ block: 'center' });
      const root = el.shadowRoot;
      const box = root.querySelector('[part~=body]').getBoundingClientRect();
      const inView = [...root.querySelectorAll('[part~=row]')].map((r) => r.getBoundingClientRect())
        .filter((b) => b.top >= box.top && b.bottom <= box.bottom - 16); // above a horizontal scrollbar
      const b = inView[n % inView.length];
      return { x: b.left + 40 + 37 * n, y: b.top + b.height / 2 };
    }, n);
    await page.mouse.click(at.x, at.y, { delay: 150 });
    opened.push(await page.evaluate(() => {
      const root = document.getElementById('all').shadowRoot;
      const press = window.presses[window.presses.length - 1];
      const detail = root.querySelector('[part~=detail]');
      return { pressed: press.key, exists: press.exists, selected: press.selected, shown: detail.hidden ? null : detail.dataset.key, during: window.changesOfAll() - press.changes };
    }));
  }
  // A row whose object was deleted during the press opens nothing (rare: counted apart).
  const gone = opened.filter((o) => o.exists === false);
  const right = opened.filter((o) => o.pressed && (o.exists === false
    ? o.selected === null : o.selected === o.pressed && o.shown === o.pressed));
  const raced = opened.filter((o) => o.during > 0).length;
  check(right.length === 10 && gone.length <= 2 && new Set(right.map((o) => o.pressed)).size >= 3,
    `ten clicks on rows (${new Set(opened.map((o) => o.pressed)).size} different) each opened the row clicked (${right.length}, ${gone.length} deleted meanwhile; ${raced} with changes during the press): ${opened.filter((o) => !right.includes(o)).map((o) => `${o.pressed} → ${o.shown}`).join(', ')}`);
  check(raced >= 3, `the churn changed the table during presses (${raced} of 10)`);
  await page.evaluate(() => document.getElementById('all').shadowRoot.querySelector('[part~=detail-close]').click());

  // `wide`: kubectl's -o wide columns, each row given the new cells in place (and back).
  const wideHeaders = kubectlHeader(['get', 'pods', '-A', '-o', 'wide']);
  const wide = await page.evaluate(async () => {
    const el = document.getElementById('all');
    const root = el.shadowRoot;
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const before = [...root.querySelectorAll('[part~=row]')];
    el.wide = true;
    await frames();
    const headers = [...root.querySelectorAll('[part~=header-cell]')].map((h) => h.textContent);
    const rows = [...root.querySelectorAll('[part~=row]')];
    const shown = el.shownColumns.length;
    const cells = rows.map((r) => r.children.length);
    el.wide = false;
    await frames();
    const narrow = [...root.querySelectorAll('[part~=row]')].map((r) => r.children.length);
    return { headers, shown, cells, kept: rows.filter((r) => before.includes(r)).length, rows: rows.length, narrow, narrowShown: el.shownColumns.length };
  });
  check(JSON.stringify(upper(wide.headers)) === JSON.stringify(wideHeaders) && wide.cells.every((n) => n === wide.shown)
    && wide.kept * 2 >= wide.rows, `wide shows kubectl get -o wide's columns in every row (${wideHeaders.join(' ')}; ${wide.kept} of ${wide.rows} row elements kept)`);
  check(wide.narrowShown < wide.shown && wide.narrow.every((n) => n === wide.narrowShown), `without wide, every row is back to ${wide.narrowShown} cells`);

  // Sorting: a header click sorts by the column's type (Available holds numbers, Age
  // sorts by creationTimestamp); again, descending.
  const click = (id, name) => page.evaluate(async ({ id, name }) => {
    const root = document.getElementById(id).shadowRoot;
    [...root.querySelectorAll('[part~=header-cell]')].find((h) => h.textContent === name).click();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  }, { id, name });
  const read = (id, name) => page.evaluate(({ id, name }) => {
    const root = document.getElementById(id).shadowRoot;
    const heads = [...root.querySelectorAll('[part~=header-cell]')];
    const at = heads.findIndex((h) => h.textContent === name);
    return {
      sort: heads[at].getAttribute('aria-sort'),
      cells: [...root.querySelectorAll('[part~=row]')].map((r) => r.children[at].textContent),
    };
  }, { id, name });
  await page.evaluate(() => ['deploys', 'all'].forEach((id) => document.getElementById(id).style.setProperty('--kubelive-height', '4000px')));
  const nondecreasing = (a) => a.every((x, i) => i === 0 || a[i - 1] <= x);
  await click('deploys', 'Available');
  // The sort holds as rows change: read until the column holds different values.
  let available = { sort: null, cells: [] };
  for (let i = 0; i < 60; i++) {
    available = await read('deploys', 'Available');
    if (new Set(available.cells).size >= 2) break;
    await sleep(500);
  }
  const numbers = available.cells.map((t) => Number.parseInt(t, 10));
  check(available.sort === 'ascending' && new Set(numbers).size >= 2 && nondecreasing(numbers), `Available (numbers) sorts numerically (${numbers.join(' ')})`);
  await click('deploys', 'Name');
  await click('deploys', 'Name');
  const names = await read('deploys', 'Name');
  const byName = [...names.cells].sort((a, b) => b.localeCompare(a, undefined, { numeric: true }));
  check(names.sort === 'descending' && JSON.stringify(names.cells) === JSON.stringify(byName), `a second click sorts descending (${names.cells.join(' ')})`);
  await click('all', 'Age');
  const ageSort = await read('all', 'Age');
  const seconds = (t) => {
    const m = /^(?:(\d+)y)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(t);
    const [y, d, h, min, s] = m ? m.slice(1).map((v) => Number(v ?? 0)) : [NaN];
    return (((y * 365 + d) * 24 + h) * 60 + min) * 60 + s;
  };
  const ages = ageSort.cells.map(seconds);
  check(ageSort.sort === 'ascending' && ages.length > 30 && nondecreasing(ages),
    `Age sorts by creationTimestamp, youngest first (${ageSort.cells.slice(0, 4).join(' ')} … ${ageSort.cells.slice(-2).join(' ')})`);

  // Sort and filter go through the table model (the watcher's view): the element draws
  // the view's window. Restarts sort by their leading number; the filter keeps the rows
  // with the word (any case) in a shown cell but Age, in the same order.
  await click('all', 'Restarts');
  const restarts = await read('all', 'Restarts');
  const leading = restarts.cells.map((t) => Number.parseInt(t, 10));
  const viewSort = await page.evaluate(() => document.getElementById('all').view.window(0, 0).sort);
  check(restarts.sort === 'ascending' && viewSort?.column === 'restarts' && !viewSort.descending && leading.length > 30 && nondecreasing(leading),
    `Restarts sorts through the view by their leading number (${restarts.cells.slice(0, 3).join(' | ')} … ${restarts.cells.slice(-2).join(' | ')})`);
  const filtered = await page.evaluate(async () => {
    const el = document.getElementById('all');
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const held = el.watcher.size;
    // A word some rows hold and others do not: the stem of a pod's name (its
    // deployment's), typed in capitals.
    const stems = el.watcher.snapshot().map((r) => r.metadata.name.split('-').slice(0, -2).join('-')).filter(Boolean);
    const counts = new Map();
    for (const stem of stems) counts.set(stem, (counts.get(stem) ?? 0) + 1);
    const word = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
    const root = el.shadowRoot;
    root.querySelector('[part~=body]').scrollTop = 0;
    el.filter = word.toUpperCase();
    const cols = el.shownColumns;
    const age = cols.findIndex((c) => c.name === 'Age');
    const restartsAt = cols.findIndex((c) => c.name === 'Restarts');
    const matches = (cells) => cells.some((t, i) => i !== age && t.toLowerCase().includes(word));
    const butAge = (cells) => cells.filter((_, i) => i !== age);
    // The DOM shows the window's first rows, in its order (read after a frame; a batch
    // of changes landing in between is waited out).
    let dom = [];
    let win = null;
    let same = false;
    for (let i = 0; i < 20 && !same; i++) {
      await frames();
      dom = [...root.querySelectorAll('[part~=row]')].map((r) => [...r.children].map((c) => c.textContent));
      win = el.view.window(0, 1000);
      same = JSON.stringify(dom.map(butAge)) === JSON.stringify(win.rows.slice(0, dom.length).map((r) => butAge(r.cells)));
    }
    const result = {
      word,
      held,
      length: win.length,
      dom: dom.length,
      domMatch: dom.every(matches),
      windowMatch: win.rows.every((r) => matches(r.cells)),
      same,
      sorted: win.rows.map((r) => Number.parseInt(r.cells[restartsAt], 10)),
      attribute: el.getAttribute('filter'),
    };
    el.filter = '';
    await frames();
    result.after = el.view.length;
    return result;
  });
  check(filtered.word.length > 0 && filtered.length > 0 && filtered.length < filtered.held && filtered.dom > 0
    && filtered.domMatch && filtered.windowMatch && filtered.same && nondecreasing(filtered.sorted) && filtered.attribute === filtered.word.toUpperCase(),
    `filter="${filtered.word.toUpperCase()}" keeps ${filtered.length} of ${filtered.held} rows, each with the word in a shown cell, still sorted by Restarts; the DOM is the view's window (${filtered.dom} drawn)`);
  check(filtered.after >= filtered.held - 5, `an empty filter shows every row again (${filtered.after} of ~${filtered.held})`);

  // An attribute change restarts the watch, and it converges to the new collection.
  const old = await page.evaluate(() => {
    const el = document.getElementById('pods');
    window.oldPods = el.watcher;
    el.setAttribute('namespace', 'ns-1');
    el.setAttribute('label-selector', 'tier=frontend');
    return true;
  });
  await until('a new watcher', () => page.evaluate(() => document.getElementById('pods').watcher !== window.oldPods), 10000);
  const restarted = await page.evaluate(() => ({ freed: window.oldPods.freed, path: document.getElementById('pods').watcher.status().phase }));
  check(old && restarted.freed, 'the old watcher was freed on the attribute change');
  await tableConverges(page, BASE, '/api/v1/namespaces/ns-1/pods?labelSelector=tier%3Dfrontend', reader('pods'),
    'after namespace and label-selector changed, the rows equal the new collection');

  // Removing an element stops its watcher and aborts its requests.
  const removedAt = Date.now();
  await page.evaluate(() => {
    const el = document.getElementById('deploys');
    window.removedWatcher = el.watcher;
    el.remove();
  });
  await sleep(2000);
  const removed = await page.evaluate(() => window.removedWatcher.freed);
  const aborted = problems.failed.filter((f) => f.url.includes('/deployments') && f.at >= removedAt - 50);
  const later = problems.requests.filter((r) => r.url.includes('/deployments') && r.at > removedAt + 100);
  check(removed, 'a removed element freed its watcher');
  check(aborted.length >= 1 && aborted.every((f) => /ABORTED/.test(f.error ?? '')), `its watch was aborted (${aborted.map((f) => f.error).join(', ')})`);
  check(later.length === 0, `no request of its collection afterwards (${later.length})`);

  // A selector the server rejects: kubelive-error with the 400, shown in the status line.
  await page.evaluate(() => document.getElementById('pods').setAttribute('label-selector', 'tier in (a'));
  await until('the rejected selector to fail', () => page.evaluate(() => document.getElementById('pods').watcher?.status().phase === 'failed'), 30000);
  pods = await page.evaluate(dom, 'pods');
  check(/failed/.test(pods.status) && /400/.test(pods.status), `the status line says failed and 400: ${pods.status}`);
  check(pods.rows.length === 0 && !pods.empty, 'a failed element shows no rows and does not claim "No resources found."');

  const events = await page.evaluate(() => window.events.map((e) => ({ type: e.type, id: e.id, composed: e.composed, bubbles: e.bubbles, code: e.detail?.code, phase: e.detail?.phase })));
  const of = (type, id) => events.filter((e) => e.type === type && (!id || e.id === id));
  check(['pods', 'deploys', 'all'].every((id) => of('kubelive-synced', id).length >= 1), 'kubelive-synced reached the document from each element');
  check(of('kubelive-change').length > 10 && of('kubelive-status').length > 3, `kubelive-change (${of('kubelive-change').length}) and kubelive-status (${of('kubelive-status').length}) events`);
  check(of('kubelive-error', 'pods').some((e) => e.code === 400), 'kubelive-error with code 400 for the rejected selector');
  check(events.every((e) => e.composed && e.bubbles), 'every event bubbles and is composed');

  // Cells are text: markup in a cell stays text (the element renders with textContent).
  const escaped = await page.evaluate(() => {
    const el = document.createElement('kubelive-table');
    el.id = 'hostile';
    el.setAttribute('resource', '/api/v1/namespaces/nope/<img src=x onerror=alert(1)>');
    document.body.append(el);
    return new Promise((r) => setTimeout(() => r({
      img: el.shadowRoot.querySelectorAll('img').length,
      status: el.shadowRoot.querySelector('[part~=status]').textContent,
    }), 500));
  });
  check(escaped.img === 0 && escaped.status.includes('<img'), `markup in what it shows stays text (${escaped.status})`);

  await page.screenshot({ path: `${ARTIFACTS}/component.png`, fullPage: true });
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
  const violations = await page.evaluate(() => window.violations);
  check(violations.length === 0, `no CSP violations under style-src 'self' (${violations.join('; ')})`);
  await context.close();
} finally {
  await browser.close();
}
done('component');
