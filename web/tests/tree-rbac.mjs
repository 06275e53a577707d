// Issue 29, the owner tree for a user who may list some of its kinds only: jane may
// get, list and watch Deployments and ReplicaSets in ns-0, not Pods. A Deployment's
// tree shows its ReplicaSets (equal to the sim's, by uid), and under each the Pod
// level as a line that says why it is missing, in the server's words (the 403's
// message); the tree is live (every kind answered), and nothing else is refused. The
// tree view (`view=tree`) says the same under the Deployment it opens.
import { launch, openPage, until, check, done, getJson, ARTIFACTS } from './lib.mjs';
import { axeCheck } from './axe.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const NS = 'ns-0';
// app-1: no widget controls it (app-0's widget is an owner this user may not get).
const APP = 'app-1';
const browser = await launch();

try {
  const { page, problems } = await openPage(browser, { viewport: { width: 1400, height: 1600 } });
  const refused = await fetch(`${BASE}/api/v1/namespaces/${NS}/pods`).then((r) => r.json());
  check(refused.code === 403, `the user may not list pods (${refused.code})`);
  await page.goto(`${BASE}/ui/#r=apps/v1/deployments&ns=${NS}`);
  await until('the first sync', () => page.evaluate(() => document.getElementById('status')?.dataset.synced === 'true'), 60000);
  const row = `.row:not(.gone)[data-key="${NS}/${APP}"]`;
  await page.waitForSelector(row, { timeout: 30000 });
  await page.dblclick(row);
  await until('the panel', () => page.evaluate((n) => document.getElementById('detail-name')?.textContent === n, APP), 10000);
  await page.click('#owner-tree-toggle');

  const d = await getJson(`${BASE}/apis/apps/v1/namespaces/${NS}/deployments/${APP}`);
  const rss = (await getJson(`${BASE}/apis/apps/v1/namespaces/${NS}/replicasets`)).items
    .filter((r) => (r.metadata.ownerReferences || []).some((o) => o.uid === d.metadata.uid))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const want = [`0 ${d.metadata.uid}`];
  for (const rs of rss) want.push(`1 ${rs.metadata.uid}`, `2 missing Pod`);
  let last = '';
  const tree = await until('the tree with its missing level', async () => {
    const t = await page.evaluate(() => {
      const s = document.getElementById('owner-tree');
      return s && {
        state: s.dataset.state,
        lines: [...s.querySelectorAll('li[role=treeitem]')].map((li) => {
          const l = li.querySelector('.tree-line');
          return li.classList.contains('tree-missing') ? `${li.dataset.depth} missing ${l.dataset.kind}` : `${li.dataset.depth} ${l.dataset.uid}`;
        }),
        why: [...s.querySelectorAll('li.tree-missing .tree-why')].map((e) => e.textContent),
      };
    });
    last = `panel ${JSON.stringify(t)} want [${want}]`;
    return t && t.state === 'live' && t.lines.join() === want.join() && t;
  }, 30000, 100).catch(() => null);
  check(tree, `the ReplicaSets are there and each one's Pod level says it is missing: ${last}`);
  check(tree && tree.why.every((w) => w === `cannot be listed: ${refused.message}`),
    `in the server's words: ${tree?.why[0]}`);
  await page.evaluate(() => document.getElementById('owner-tree')?.scrollIntoView());
  await axeCheck(page, 'the owner tree with a missing level');
  await page.screenshot({ path: `${ARTIFACTS}/tree-rbac.png` });

  // The tree view of the same Deployments: the head says pods cannot be listed, and
  // the opened Deployment's ReplicaSets each say so of their Pod level.
  await page.goto(`${BASE}/ui/#view=tree&r=apps/v1/deployments&ns=${NS}`);
  const forest = await until('the tree view with its missing level', async () => {
    const f = await page.evaluate(() => {
      const h = document.getElementById('forest-host');
      return h && {
        pods: h.querySelector('.forest-kind[data-resource="pods"]')?.dataset.state,
        replicasets: h.querySelector('.forest-kind[data-resource="replicasets"]')?.dataset.state,
        lines: [...h.querySelectorAll('[role=treeitem]')]
          .sort((a, b) => Number(a.dataset.line) - Number(b.dataset.line))
          .map((li) => {
            const l = li.querySelector('.tree-line');
            return li.classList.contains('tree-missing') ? `${li.dataset.depth} missing ${l.dataset.kind}` : `${li.dataset.depth} ${l.dataset.uid}`;
          }),
        why: [...h.querySelectorAll('.tree-missing .tree-why')].map((e) => e.textContent),
      };
    });
    last = `view ${JSON.stringify(f)}`;
    if (f && f.replicasets === 'live' && f.pods === 'cannot be listed' && !f.lines.some((l) => l.startsWith('1 '))) {
      await page.click(`[role=treeitem][data-key="${d.metadata.uid}"] .tree-twisty`).catch(() => {});
      return null;
    }
    const mine = f?.lines.slice(f.lines.indexOf(`0 ${d.metadata.uid}`), f.lines.indexOf(`0 ${d.metadata.uid}`) + want.length);
    return f && mine.join() === want.join() && f;
  }, 30000, 200).catch(() => null);
  check(forest, `in the tree view too, each ReplicaSet's Pod level says it is missing: ${last}`);
  check(forest && forest.why.every((w) => w === `cannot be listed: ${refused.message}`), `in the server's words (${forest?.why[0]})`);
  await axeCheck(page, 'the tree view with a missing level');
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
} finally {
  await browser.close();
}
done('tree-rbac');
