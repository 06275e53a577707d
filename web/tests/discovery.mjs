// Issue 13, discovery: against the sim (which serves aggregated discovery as
// kube-apiserver 1.30+ does), the app asks exactly two discovery questions on load,
// `/api` and `/apis`, each with the aggregated `apidiscovery.k8s.io/v2` Accept (as
// kubectl does), gets aggregated documents back, and asks for no per-group document;
// the picker then holds every listable resource of every group the server offers.
import { launch, openPage, until, check, done, getJson } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const browser = await launch();

try {
  const { page, problems } = await openPage(browser);
  const discovery = [];
  page.on('response', async (r) => {
    const path = new URL(r.url()).pathname;
    // Discovery documents: /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>.
    if (/^\/apis?(\/[^/]+){0,2}$/.test(path) && !/\/(pods|namespaces|events)$/.test(path) && r.request().method() === 'GET') {
      discovery.push({ path, accept: r.request().headers().accept, type: r.headers()['content-type'], status: r.status() });
    }
  });
  await page.goto(`${BASE}/ui/#r=v1/pods`);
  await until('the first sync', () => page.evaluate(() => document.getElementById('status')?.dataset.synced === 'true'), 60000);
  const picker = await page.evaluate(() => [...document.querySelectorAll('#resource option')].map((o) => o.value));
  check(discovery.length === 2 && discovery.map((d) => d.path).sort().join() === '/api,/apis',
    `exactly two discovery requests: ${discovery.map((d) => d.path).join(', ')}`);
  check(discovery.every((d) => d.accept?.startsWith(AGGREGATED)), `each asks for aggregated discovery (${discovery.map((d) => d.accept).join(' | ')})`);
  check(discovery.every((d) => d.status === 200 && d.type?.startsWith(AGGREGATED)), `and gets it (${discovery.map((d) => d.type).join(' | ')})`);

  // The picker: every resource the server's legacy documents list with list and watch.
  const expected = [];
  const core = await getJson(`${BASE}/api/v1`);
  for (const r of core.resources) if (!r.name.includes('/') && r.verbs.includes('list') && r.verbs.includes('watch')) expected.push(`v1/${r.name}`);
  const groups = await getJson(`${BASE}/apis`);
  for (const g of groups.groups) {
    const gv = g.preferredVersion.groupVersion;
    const doc = await getJson(`${BASE}/apis/${gv}`);
    for (const r of doc.resources) if (!r.name.includes('/') && r.verbs.includes('list') && r.verbs.includes('watch')) expected.push(`${gv}/${r.name}`);
  }
  const missing = expected.filter((e) => !picker.includes(e));
  check(missing.length === 0 && picker.length === expected.length,
    `the picker holds every listable resource of the ${groups.groups.length + 1} groups (${picker.length} of ${expected.length}; missing ${missing.join(', ')})`);
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
} finally {
  await browser.close();
}
done('discovery');
