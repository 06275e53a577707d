// Issue 13, a user with limited permissions, through kubectl proxy against the sim in
// RBAC mode: jane@example.com may list and watch pods in ns-1 and ns-2 only, and may
// not list namespaces (as most users of a shared cluster). She opens the app on pods
// in all namespaces: the table area says why nothing shows, in the server's words,
// and what to do; a namespace typed in the field gives a working view (no URL
// editing), a second one too, and both are remembered: after a reload the refused
// view offers them, checked with SelfSubjectRulesReviews, one click away. A namespace
// she may not use is refused with the server's words. Resources she may not list are
// marked in the picker, and opening one says why. The review POSTs stay few, each
// question asked once.
import { launch, openPage, until, check, done, convergeTo, ARTIFACTS } from './lib.mjs';
import { axeCheck } from './axe.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const browser = await launch();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The server's own 403 message for a GET (what the app must show, word for word). */
async function refusal(path) {
  const r = await fetch(`${BASE}${path}`);
  const body = await r.json();
  if (r.status !== 403) throw new Error(`GET ${path}: expected 403, got ${r.status}`);
  return body.message;
}

const text = (page, sel) => page.evaluate((s) => document.querySelector(s)?.textContent ?? null, sel);
const synced = (page) => page.evaluate(() => {
  const st = document.getElementById('status');
  return st?.dataset.synced === 'true' && st.dataset.phase === 'watching';
});

/** Types a namespace into the field and presses Enter. */
async function typeNamespace(page, ns) {
  await page.fill('#namespace', ns);
  await page.press('#namespace', 'Enter');
}

try {
  const { context, page, problems } = await openPage(browser, { viewport: { width: 1400, height: 2600 } });
  const posts = [];
  context.on('request', (r) => {
    if (r.method() === 'POST') posts.push({ url: r.url().replace(/^https?:\/\/[^/]+/, ''), body: r.postData() });
  });
  await page.goto(`${BASE}/ui/#r=v1/pods`);

  // All namespaces: refused, said in the table area with the server's words.
  const allMessage = await refusal('/api/v1/pods');
  const title = await until('the refusal', () => text(page, '#problem-title'), 30000);
  check(title === 'You may not list pods in all namespaces.', `the refusal says what she may not do: ${title}`);
  const message = await text(page, '#problem-message');
  check(message?.startsWith(allMessage), `and the server's words: ${message}`);
  check(!(await page.evaluate(() => document.body.innerText.includes('Waiting for the first list'))), 'not "Waiting for the first list"');
  const hint = await until('the hint', () => text(page, '.problem-hint'), 10000).catch(() => null);
  check(hint === 'Type the name of a namespace you can use in the Namespace field.', `nothing to offer yet, so it says what to do: ${hint}`);
  const nsNote = await until('the namespaces watch failure', () => text(page, '#ns-note'), 10000).catch(() => null);
  check(nsNote?.includes('cannot list namespaces') && nsNote.includes('type a name'), `the namespace field says it cannot list namespaces: ${nsNote}`);
  await page.screenshot({ path: `${ARTIFACTS}/rbac-refused.png`, clip: { x: 0, y: 0, width: 1400, height: 500 } });
  // Issue 30: the refused view and the namespace field's error state are accessible too.
  await axeCheck(page, 'the refused view, the namespace field unable to list');

  // A typed namespace: a working view, converging to the server's truth.
  await typeNamespace(page, 'ns-1');
  await until('the ns-1 view', async () => (await page.evaluate(() => location.hash)).includes('ns=ns-1') && synced(page), 30000);
  check(await page.evaluate(() => !document.getElementById('problem')), 'the problem is gone');
  await convergeTo(page, BASE, '/api/v1/namespaces/ns-1/pods', 'pods in ns-1, typed');
  // A second one.
  await typeNamespace(page, 'ns-2');
  await until('the ns-2 view', async () => (await page.evaluate(() => location.hash)).includes('ns=ns-2') && synced(page), 30000);
  await convergeTo(page, BASE, '/api/v1/namespaces/ns-2/pods', 'pods in ns-2, typed');
  const remembered = await page.evaluate(() => localStorage.getItem('kubelive.namespaces'));
  check(remembered === '["ns-2","ns-1"]', `both are remembered, newest first: ${remembered}`);

  // A namespace she may not use: refused with the server's words, the others offered.
  await typeNamespace(page, 'ns-3');
  const nsMessage = await refusal('/api/v1/namespaces/ns-3/pods');
  const nsTitle = await until('the ns-3 refusal', () => text(page, '#problem-title'), 30000);
  check(nsTitle === 'You may not list pods in namespace ns-3.', `ns-3 is refused: ${nsTitle}`);
  check((await text(page, '#problem-message'))?.startsWith(nsMessage), `with the server's words: ${nsMessage}`);
  await until('ns-1 and ns-2 offered', () => page.evaluate(() =>
    ['ns-1', 'ns-2'].every((ns) => document.querySelector(`#choices button.choice.allowed[data-ns="${ns}"]`))), 15000)
    .then(() => check(true, 'ns-1 and ns-2 are offered as usable'), () => check(false, 'ns-1 and ns-2 are offered as usable'));
  await axeCheck(page, 'a refused namespace with the usable ones offered');

  // A reload: the remembered namespaces are offered where the refused view was.
  const firstLoad = posts.length;
  const again = page;
  await again.goto('about:blank');
  await again.goto(`${BASE}/ui/#r=v1/pods`);
  await until('the refusal after a reload', () => text(again, '#problem-title'), 30000);
  const offered = await until('the offered namespaces', async () => {
    const o = await again.evaluate(() => [...document.querySelectorAll('#choices button.choice.allowed')].map((b) => b.dataset.ns));
    return o.length >= 2 && o;
  }, 15000).catch(() => []);
  check(offered.join() === 'ns-2,ns-1', `after a reload the remembered namespaces are offered, checked: ${offered.join(', ')}`);
  const suggested = await again.evaluate(() => [...document.querySelectorAll('#ns-options option')].map((o) => o.value));
  check(['ns-1', 'ns-2'].every((n) => suggested.includes(n)), `and suggested in the namespace field: ${suggested.join(', ')}`);
  check((await text(again, '.problem-hint')) === 'Pick a namespace you can use:', `the hint: ${await text(again, '.problem-hint')}`);
  await again.screenshot({ path: `${ARTIFACTS}/rbac-offered.png`, clip: { x: 0, y: 0, width: 1400, height: 500 } });
  // One click: a working view.
  await again.click('#choices button.choice.allowed[data-ns="ns-1"]');
  await until('the chosen view', async () => (await again.evaluate(() => location.hash)).includes('ns=ns-1') && synced(again), 30000);
  await convergeTo(again, BASE, '/api/v1/namespaces/ns-1/pods', 'pods in ns-1, one click after the reload');

  // Forbidden resources are marked once the picker is opened; opening one says why.
  await again.focus('#resource');
  const marks = await until('the picker marks', async () => {
    const m = await again.evaluate(() => Object.fromEntries([...document.querySelectorAll('#resource option')]
      .map((o) => [o.value, { access: o.dataset.access, label: o.textContent }])));
    return m['apps/v1/deployments']?.access === 'denied' && m;
  }, 20000).catch(() => null);
  check(marks && marks['apps/v1/deployments'].label.endsWith('— no access'), `deployments are marked as denied: ${JSON.stringify(marks?.['apps/v1/deployments'])}`);
  check(marks && marks['v1/pods'].access === '', `pods in ns-1 are not: ${JSON.stringify(marks?.['v1/pods'])}`);
  const denied = marks ? Object.entries(marks).filter(([, v]) => v.access === 'denied').map(([k]) => k) : [];
  console.log(`  (marked as denied in ns-1: ${denied.join(', ')})`);
  await again.selectOption('#resource', 'apps/v1/deployments');
  const depMessage = await refusal('/apis/apps/v1/namespaces/ns-1/deployments');
  const depTitle = await until('the deployments refusal', () => text(again, '#problem-title'), 30000);
  check(depTitle === 'You may not list deployments in namespace ns-1.', `opening one says so: ${depTitle}`);
  check((await text(again, '#problem-message'))?.startsWith(depMessage), `in the server's words: ${depMessage}`);
  await again.screenshot({ path: `${ARTIFACTS}/rbac-denied-resource.png`, clip: { x: 0, y: 0, width: 1400, height: 500 } });

  // The reviews: each question at most once per page load, and no more questions
  // than there are resources and namespaces to ask about.
  await sleep(1000);
  const reviews = posts.filter((p) => p.url.startsWith('/apis/authorization.k8s.io/v1/'));
  check(reviews.length === posts.length, `every POST is an access review (${posts.length})`);
  const resources = Object.keys(marks || {}).length;
  for (const [load, list] of [['first', reviews.slice(0, firstLoad)], ['second', reviews.slice(firstLoad)]]) {
    const bodies = list.map((p) => p.body);
    const repeated = bodies.filter((b, i) => bodies.indexOf(b) !== i);
    const rules = list.filter((p) => p.url.endsWith('selfsubjectrulesreviews')).length;
    const access = list.length - rules;
    console.log(`  (${load} page load: ${rules} rules reviews, ${access} access reviews; ${resources} resources)`);
    check(repeated.length === 0, `${load} page load: no question asked twice (${repeated.join(' ')})`);
    // Rules reviews: one per namespace tried or offered (ns-1, ns-2, ns-3); access
    // reviews: one per resource in a scope (all namespaces, one namespace).
    check(rules <= 3 && access <= 2 * resources, `${load} page load: the reviews are bounded (${rules} <= 3, ${access} <= ${2 * resources})`);
  }
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
} finally {
  await browser.close();
}
done('rbac');
