// Issue 13, a user who may list namespaces but pods only in ns-1 and ns-2, on her first
// visit (nothing remembered): the refused all-namespaces view offers the namespaces
// she can use, found from the cluster's namespaces and one SelfSubjectRulesReview
// each, and names those she cannot use; one click gives a working view that converges
// to the server's truth.
import { launch, openPage, until, check, done, convergeTo, ARTIFACTS } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const browser = await launch();
const text = (page, sel) => page.evaluate((s) => document.querySelector(s)?.textContent ?? null, sel);

try {
  const { page, problems } = await openPage(browser, { viewport: { width: 1400, height: 2600 } });
  const reviews = [];
  page.on('request', (r) => {
    if (r.method() === 'POST') reviews.push(r.postData());
  });
  await page.goto(`${BASE}/ui/#r=v1/pods`);
  const server = await (await fetch(`${BASE}/api/v1/pods`)).json();
  const title = await until('the refusal', () => text(page, '#problem-title'), 30000);
  check(title === 'You may not list pods in all namespaces.', `the refusal: ${title}`);
  check((await text(page, '#problem-message'))?.startsWith(server.message), `in the server's words: ${server.message}`);
  const offered = await until('the offered namespaces', async () => {
    const o = await page.evaluate(() => ({
      allowed: [...document.querySelectorAll('#choices button.choice.allowed')].map((b) => b.dataset.ns),
      denied: document.getElementById('denied')?.textContent ?? '',
    }));
    return o.allowed.length === 2 && o.denied.includes('ns-0') && o.denied.includes('ns-3') && o;
  }, 20000).catch(() => null);
  check(offered && offered.allowed.sort().join() === 'ns-1,ns-2', `ns-1 and ns-2 are offered: ${JSON.stringify(offered)}`);
  // kube-system is the cluster's too (kube-apiserver makes it), and not hers.
  check(offered && offered.denied === 'Not allowed: kube-system, ns-0, ns-3', `kube-system, ns-0 and ns-3 are named as not allowed: ${offered?.denied}`);
  check((await text(page, '.problem-hint')) === 'Pick a namespace you can use:', `the hint: ${await text(page, '.problem-hint')}`);
  const rules = reviews.filter((b) => b?.includes('SelfSubjectRulesReview'));
  const namespaces = (await (await fetch(`${BASE}/api/v1/namespaces`)).json()).items.length;
  check(namespaces === 5 && rules.length === namespaces && new Set(rules).size === namespaces,
    `one rules review per namespace (${rules.length} for ${namespaces})`);
  await page.screenshot({ path: `${ARTIFACTS}/rbac-offers.png`, clip: { x: 0, y: 0, width: 1400, height: 500 } });

  await page.click('#choices button.choice.allowed[data-ns="ns-2"]');
  await until('the chosen view', () => page.evaluate(() => location.hash.includes('ns=ns-2')
    && document.getElementById('status').dataset.synced === 'true'), 30000);
  check(await page.evaluate(() => !document.getElementById('problem')), 'one click: the problem is gone');
  await convergeTo(page, BASE, '/api/v1/namespaces/ns-2/pods', 'pods in ns-2, one click on the first visit');
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
} finally {
  await browser.close();
}
done('rbac-offers');
