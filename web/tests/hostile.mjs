// Hostile data is data: a mock apiserver (same origin as the app, as through kubectl
// proxy) serves pods whose name, labels, annotations, node and status hold markup and
// script. The app must show them as text: no element is created from them, nothing
// executes (no dialog, no global set), and the CSP holds.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, until, check, done, ARTIFACTS } from './lib.mjs';

const DIST = process.env.DIST || new URL('../../dist', import.meta.url).pathname;
const XSS = [
  '<img src=x onerror="alert(1);window.__pwned=1">',
  '<script>alert(2);window.__pwned=2</script>',
  '"><svg onload=alert(3)>',
  '<iframe src="javascript:alert(4)"></iframe>',
  "javascript:alert(5)//'\"><b>bold</b>",
];

function pod(name, i, rv) {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: 'default', uid: `uid-${i}`, resourceVersion: String(rv),
      creationTimestamp: '2024-01-01T00:00:00Z',
      labels: { app: XSS[(i + 1) % XSS.length], [`x${i}`]: XSS[(i + 2) % XSS.length] },
      annotations: { note: XSS[(i + 3) % XSS.length], html: '<style>*{display:none}</style>' },
    },
    spec: { nodeName: XSS[(i + 2) % XSS.length], containers: [{ name: 'c' }] },
    status: { phase: XSS[(i + 4) % XSS.length], containerStatuses: [{ name: 'c', ready: true, restartCount: i }] },
  };
}

const pods = XSS.map((n, i) => pod(n, i, 10 + i));
const XSS_COUNT = XSS.length;
// A status that would add a class of its own if class names were built from it raw.
const sneaky = pod('sneaky-status', 7, 30);
sneaky.status.phase = 'x st-running';
pods.push(sneaky);
// A name longer than its column is wide (253 bytes: the longest a pod's may be).
const LONG = `wide-${'m'.repeat(240)}-name-end`;
pods.push(pod(LONG, 8, 31));
const current = new Map(pods.map((p) => [p.metadata.name, p]));
const json = (res, code, body) => {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };

// Every API path the app asked for (the UI's own files aside).
const asked = [];
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (!url.pathname.startsWith('/ui/')) asked.push(url.pathname);
  const p = url.pathname;
  const watch = url.searchParams.get('watch') === 'true';
  if (p === '/api') return json(res, 200, { kind: 'APIVersions', versions: ['v1'] });
  if (p === '/apis') return json(res, 200, { kind: 'APIGroupList', groups: [] });
  if (p === '/api/v1') {
    return json(res, 200, {
      kind: 'APIResourceList', groupVersion: 'v1', resources: [
        { name: 'pods', namespaced: true, kind: 'Pod', verbs: ['get', 'list', 'watch'] },
        { name: 'namespaces', namespaced: false, kind: 'Namespace', verbs: ['get', 'list', 'watch'] },
        { name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['get', 'list', 'watch'] },
      ],
    });
  }
  // The server prints this one: a Table whose column names, descriptions and cells
  // hold markup.
  if (p === '/api/v1/configmaps' && (req.headers.accept || '').includes('as=Table')) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const columnDefinitions = [
      { name: 'Name', type: 'string', format: 'name', description: XSS[0], priority: 0 },
      { name: XSS[1], type: 'string', format: '', description: XSS[2], priority: 0 },
      { name: 'Status', type: 'string', format: '', description: '', priority: 0 },
      { name: 'Count', type: 'integer', format: '', description: '', priority: 0 },
    ];
    const rows = XSS.map((x, i) => ({
      cells: [`cm-${i}`, x, i === 0 ? 'x tone-ok' : XSS[(i + 1) % XSS.length], i],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: `cm-${i}`, namespace: 'default', uid: `cm-${i}`, resourceVersion: String(200 + i), creationTimestamp: '2024-01-01T00:00:00Z' } },
    }));
    if (!watch) return res.end(JSON.stringify({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '300' }, columnDefinitions, rows }));
    return;
  }
  // One pod, as the detail panel GETs it: the version last sent on the watch.
  const one = p.match(/^\/api\/v1\/namespaces\/default\/pods\/([^/]+)$/);
  if (one) {
    const found = current.get(decodeURIComponent(one[1]));
    return found ? json(res, 200, found) : json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
  }
  if (p === '/api/v1/namespaces' || p === '/api/v1/pods') {
    const items = p.endsWith('pods') ? pods : [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: XSS[1], uid: 'ns1', resourceVersion: '5' } }];
    if (!watch) return json(res, 200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '100' }, items });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    if (p.endsWith('pods')) {
      // A live change of a hostile object, then bookmarks; the stream stays open.
      const changed = pod(XSS[0], 0, 101);
      changed.metadata.labels.changed = '<img src=y onerror=alert(6)>';
      const send = (type, object) => {
        current.set(object.metadata.name, object);
        res.write(JSON.stringify({ type, object }) + '\n');
      };
      setTimeout(() => send('MODIFIED', changed), 300);
      const added = pod('<marquee>added</marquee>', 9, 102);
      setTimeout(() => send('ADDED', added), 500);
    }
    const t = setInterval(() => res.write(JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '102' } } }) + '\n'), 1000);
    req.on('close', () => clearInterval(t));
    return;
  }
  if (p.startsWith('/ui/')) {
    let file = path.join(DIST, p.slice(4) || 'index.html');
    if (file.endsWith('/')) file = path.join(file, 'index.html');
    if (!file.startsWith(DIST) || !fs.existsSync(file)) { res.writeHead(404); return res.end('not found'); }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
    return res.end(fs.readFileSync(file));
  }
  res.writeHead(404);
  res.end('not found');
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const BASE = `http://127.0.0.1:${server.address().port}`;

const browser = await launch();
try {
  const { page, problems } = await openPage(browser);
  const csp = [];
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) csp.push(m.text()); });
  await page.goto(`${BASE}/ui/#r=v1/pods`);
  await until('the hostile pods to show', () => page.evaluate(() => document.querySelectorAll('.row').length >= 6), 20000);
  await page.waitForTimeout(800);
  const names = await page.evaluate(() => [...document.querySelectorAll('.row .td.name')].map((e) => e.textContent));
  for (const x of XSS) check(names.includes(x), `the name ${JSON.stringify(x)} is shown as text`);
  check(names.includes('<marquee>added</marquee>'), 'a watched ADDED hostile object is shown as text');

  // A cell whose text does not fit ends it in an ellipsis; the others clip (the app
  // measures its columns: crates/web/src/app/grid/columns.rs). Again once the window is narrower.
  const overflow = () => page.evaluate(() => [...document.querySelectorAll('.row .td')].map((c) => ({
    text: c.textContent,
    over: c.scrollWidth > c.clientWidth,
    ellipsis: getComputedStyle(c).textOverflow === 'ellipsis',
  })));
  const wide = await overflow();
  const unmarked = (cells) => cells.filter((c) => c.over && !c.ellipsis).map((c) => c.text);
  check(unmarked(wide).length === 0, `every cell whose text does not fit ends in an ellipsis (not: ${JSON.stringify(unmarked(wide))})`);
  check(wide.some((c) => c.text === LONG && c.over && c.ellipsis), 'the long name is cut with an ellipsis');
  check(wide.some((c) => !c.ellipsis), 'cells whose texts fit have no ellipsis');
  await page.setViewportSize({ width: 720, height: 900 });
  await page.waitForTimeout(500);
  const narrow = await overflow();
  check(unmarked(narrow).length === 0, `after the window narrows too (not: ${JSON.stringify(unmarked(narrow))})`);
  check(narrow.filter((c) => c.ellipsis).length > wide.filter((c) => c.ellipsis).length,
    `more cells may not fit in a narrower window (${wide.filter((c) => c.ellipsis).length} -> ${narrow.filter((c) => c.ellipsis).length})`);
  await page.setViewportSize({ width: 1400, height: 900 });
  // Open the first hostile object: labels, annotations and JSON in the detail panel.
  await page.click(`.row[data-key="default/${XSS[0].replace(/"/g, '\\"')}"]`);
  await page.keyboard.press('Enter');
  // The row holds identity metadata only: labels and annotations come with the GET.
  await page.waitForSelector('#detail-text');
  await page.waitForTimeout(300);
  const detail = await page.evaluate(() => document.getElementById('detail').textContent);
  check(detail.includes('<img src=y onerror=alert(6)>'), 'a label holding markup is shown as text (after a live MODIFIED)');
  check(detail.includes('<style>*{display:none}</style>'), 'an annotation holding markup is shown as text');
  const ns = await page.evaluate(() => [...document.querySelectorAll('#ns-options option')].map((o) => o.value));
  check(ns.includes(XSS[1]), 'a namespace name holding markup is only an attribute value among the suggestions');
  const created = await page.evaluate(() => ['img', 'script', 'svg', 'iframe', 'marquee', 'style']
    .map((t) => [t, document.querySelectorAll(`#app ${t}`).length])
    .concat([['b (from data)', [...document.querySelectorAll('#app b')].filter((b) => b.textContent === 'bold').length]])
    .filter(([, n]) => n > 0));
  check(created.length === 0, `no element was created from object data (${JSON.stringify(created)})`);
  check(await page.evaluate(() => window.__pwned === undefined), 'no hostile script ran');
  check(problems.dialogs.length === 0, `no dialog opened (${problems.dialogs.join(', ')})`);
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
  // The CSP forbids inline script: an injected inline script (as an attacker would
  // need) is refused.
  const blocked = await page.evaluate(() => new Promise((resolve) => {
    document.addEventListener('securitypolicyviolation', (e) => resolve(e.violatedDirective), { once: true });
    const s = document.createElement('script');
    s.textContent = 'window.__inline = 1';
    document.body.append(s);
    setTimeout(() => resolve(window.__inline === 1 ? 'ran' : 'no event'), 500);
  }));
  check(blocked.startsWith('script-src'), `the CSP blocks inline script (${blocked})`);
  await page.screenshot({ path: `${ARTIFACTS}/hostile.png` });

  // A status cannot restyle its cell: its class is built from [a-z0-9-] only.
  const classes = await page.evaluate(() => {
    const row = document.querySelector('.row[data-key="default/sneaky-status"]');
    return row && row.querySelector('.td[data-col="status"]').className;
  });
  // (`w-mid`: the column's width class, crates/web/src/table.rs; `cut`: its text may not fit)
  check(classes.replace(' cut', '') === 'td w-mid st-xst-running', `the status "x st-running" gives one class, st-xst-running (${classes})`);
  const color = await page.evaluate(() => {
    const cell = document.querySelector('.row[data-key="default/sneaky-status"] .td[data-col="status"]');
    return [getComputedStyle(cell).color, getComputedStyle(document.documentElement).getPropertyValue('--ok').trim()];
  });
  check(color[0] !== 'rgb(26, 127, 55)' && color[0] !== 'rgb(63, 185, 80)', `and is not coloured as Running (${color[0]})`);

  // Cells the server printed are text too, and so are its column names and
  // descriptions (titles); a cell cannot add a class of its own either.
  await page.goto(`${BASE}/ui/#r=v1/configmaps`);
  // The configmaps' own rows (the pods view's rows may still be on screen for a moment).
  await until('the printed rows', () => page.evaluate((n) => document.querySelectorAll('.row[data-key^="default/cm-"]').length >= n, XSS_COUNT), 20000).catch(() => {});
  const printed = await page.evaluate(() => ({
    headers: [...document.querySelectorAll('.th .th-name')].map((h) => h.textContent),
    titles: [...document.querySelectorAll('.th')].map((h) => h.title),
    cells: [...document.querySelectorAll('.row .td')].map((c) => c.textContent),
    classes: [...document.querySelectorAll('.row .td')].map((c) => c.className),
  }));
  check(printed.headers.includes(XSS[1]), `a column name holding markup is a header's text (${printed.headers.join(' | ')})`);
  check(printed.titles.includes(XSS[0]) && printed.titles.includes(XSS[2]), 'column descriptions holding markup are titles');
  check(XSS.every((x) => printed.cells.includes(x)), 'cells holding markup are shown as text');
  check(printed.classes.every((c) => /^[a-z0-9 -]+$/.test(c)) && !printed.classes.some((c) => c.split(' ').includes('tone-ok')),
    `cell classes come from [a-z0-9-] and a fixed list only (${[...new Set(printed.classes)].join(', ')})`);
  const createdTable = await page.evaluate(() => ['img', 'script', 'svg', 'iframe', 'marquee', 'style']
    .map((t) => [t, document.querySelectorAll(`#app ${t}`).length]).filter(([, n]) => n > 0));
  check(createdTable.length === 0, `no element was created from printed cells (${JSON.stringify(createdTable)})`);
  check(await page.evaluate(() => window.__pwned === undefined), 'no hostile script ran from printed cells');
  check(problems.dialogs.length === 0, `no dialog opened by printed cells (${problems.dialogs.join(', ')})`);

  // A resource or namespace in the hash is checked before use: nothing outside the
  // API's discovery and collection paths is ever requested.
  for (const [hash, want] of [
    ['#r=..%2F..%2Fx', 'This link does not name a view kubelive can open.'],
    ['#r=v1%2F..%2F..%2Fx%3Fy%3D1', 'This link does not name a view kubelive can open.'],
    ['#r=v1/nosuch', 'The server offers no resource v1/nosuch that can be listed and watched.'],
    ['#r=apps/v1/deployments', 'The server offers no resource apps/v1/deployments that can be listed and watched.'],
    ['#r=v1/pods&ns=..%2F..%2Fx', 'This link does not name a view kubelive can open.'],
  ]) {
    asked.length = 0;
    await page.goto('about:blank');
    await page.goto(`${BASE}/ui/${hash}`);
    const title = await until(`the problem for ${hash}`, () => page.evaluate(() => document.getElementById('problem-title')?.textContent), 10000).catch(() => null);
    await page.waitForTimeout(500);
    const strange = asked.filter((p) => !['/api', '/apis', '/api/v1', '/api/v1/namespaces'].includes(p));
    check(title === want, `${hash}: "${title}"`);
    check(strange.length === 0, `${hash}: no request outside discovery (${strange.join(', ') || 'none'})`);
  }
} finally {
  await browser.close();
  server.close();
}
done('hostile');
