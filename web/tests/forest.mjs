// The tree view (`#view=tree&r=apps/v1/deployments&ns=...`): every Deployment of the
// namespace as the root of its owner tree, closed; opening one shows its ReplicaSets
// and their pods, live. Against the sim rolling its Deployments over
// (`--rollout-every`): the roots are the sim's Deployments, an opened root's lines
// equal the sim's truth (by uid) and follow a rollout. The apiserver's cost, read on
// the sim's /metrics: the view's own LIST and WATCH of Deployments (shared with the
// table: switching between table and tree lists no Deployment again) and one LIST
// and WATCH per kind below, none per root or line. The keys of WAI-ARIA's tree move
// through the lines and open and close them; a root's name opens its detail panel
// beside the tree, whose owner tree shares the tree view's engines (no LIST); a
// line's name below leads to its object's table with its detail panel open. Below
// a custom resource (the sim's widgets), only the kinds its objects control are
// watched, found by one read of the namespace. It fits 800 and 360 px windows;
// axe-core finds no serious violation.
import { launch, openPage, until, check, done, getJson, apiRequests, requestsDelta, ARTIFACTS } from './lib.mjs';
import { axeCheck } from './axe.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const NS = process.env.TREE_NS || 'ns-0';
const browser = await launch();

/** LISTs this script made (subtracted from the sim's counts). */
const ownLists = {};
async function list(path, resource) {
  ownLists[resource] = (ownLists[resource] || 0) + 1;
  return (await getJson(`${BASE}${path}`)).items;
}
async function metrics() {
  const m = await apiRequests(BASE);
  for (const [r, n] of Object.entries(ownLists)) m[`LIST ${r}`] = (m[`LIST ${r}`] || 0) - n;
  return m;
}

/** The forest as drawn: its counts, the head's kinds and the lines as `depth uid`. */
const forest = (page) => page.evaluate(() => {
  const host = document.getElementById('forest-host');
  if (!host) return null;
  const items = [...host.querySelectorAll('[role=treeitem]')]
    .sort((a, b) => Number(a.dataset.line) - Number(b.dataset.line));
  return {
    roots: Number(host.dataset.roots),
    synced: document.getElementById('status')?.dataset.synced === 'true',
    total: Number(host.dataset.lines),
    kinds: Object.fromEntries([...host.querySelectorAll('.forest-kind[data-resource]')].map((k) => [k.dataset.resource, k.dataset.state])),
    lines: items.map((li) => `${li.dataset.depth} ${li.querySelector('.tree-line')?.dataset.uid ?? li.dataset.key}`),
    names: items.map((li) => li.querySelector('.tree-line')?.dataset.name),
    expanded: items.map((li) => li.getAttribute('aria-expanded')),
    health: items.map((li) => li.querySelector('.tree-line')?.dataset.health),
    stops: host.querySelectorAll('[role=treeitem][tabindex="0"]').length,
  };
});

/** The sim's truth: the namespace's Deployments by name, and below `open` (a name) its ReplicaSets and their pods. */
async function truth(open) {
  // The table's order by name: digits compare as numbers (app-2 before app-10).
  const deps = (await list(`/apis/apps/v1/namespaces/${NS}/deployments`, 'deployments'))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name, 'en', { numeric: true }));
  const lines = [];
  let rss = [];
  const owned = (items, uid) => items.filter((o) => (o.metadata.ownerReferences || []).some((r) => r.uid === uid));
  const byName = (a, b) => a.metadata.name.localeCompare(b.metadata.name);
  const allRs = open ? await list(`/apis/apps/v1/namespaces/${NS}/replicasets`, 'replicasets') : [];
  const pods = open ? await list(`/api/v1/namespaces/${NS}/pods`, 'pods') : [];
  for (const d of deps) {
    lines.push(`0 ${d.metadata.uid}`);
    if (d.metadata.name !== open) continue;
    rss = owned(allRs, d.metadata.uid).sort(byName);
    for (const rs of rss) {
      lines.push(`1 ${rs.metadata.uid}`);
      for (const p of owned(pods, rs.metadata.uid).sort(byName)) lines.push(`2 ${p.metadata.uid}`);
    }
  }
  return { deps, lines, rss: rss.map((r) => r.metadata.uid) };
}

try {
  const { page, problems } = await openPage(browser, { viewport: { width: 1400, height: 1200 } });
  const before = await metrics();
  const navigated = Date.now();
  await page.goto(`${BASE}/ui/#view=tree&r=apps/v1/deployments&ns=${NS}`);
  const live = await until('the forest to be live', async () => {
    const f = await forest(page);
    return f && f.synced && f.kinds.replicasets === 'live' && f.kinds.pods === 'live' && f.roots > 0 && f;
  }, 60000, 20).catch(() => null);
  console.log(`figure: navigation to the tree view live ${Date.now() - navigated} ms (${live?.roots} roots)`);
  check(live, `the tree view of deployments in ${NS} is live (${JSON.stringify(live?.kinds)}, ${live?.roots} roots)`);
  const toggle = await page.evaluate(() => document.getElementById('tree-toggle')?.checked);
  check(toggle === true, `the toolbar's Tree toggle is on (${toggle})`);

  // Every Deployment is a root, closed, in the table's order (by name).
  let last = '';
  // Only the window's lines are drawn: they are the truth's first lines, and the
  // forest counts every root.
  const drawnAgree = (f, t) => f && f.lines.length > 0 && f.total === t.lines.length
    && f.lines.join() === t.lines.slice(0, f.lines.length).join();
  const roots = await until('the roots to equal the sim\'s Deployments', async () => {
    const t = await truth(null);
    const f = await forest(page);
    last = `view ${f?.roots} roots [${f?.lines.slice(0, 4)}...] sim ${t.deps.length} [${t.lines.slice(0, 4)}...]`;
    return drawnAgree(f, t) && f.roots === t.deps.length && { t, f };
  }, 30000, 200).catch(() => null);
  check(roots, `every Deployment is a root, in name order: ${last}`);
  check(roots && roots.f.expanded.every((e) => e === 'false' || e === null), `roots start closed (${roots?.f.expanded})`);
  check(roots && roots.f.expanded.some((e) => e === 'false'), 'a root with ReplicaSets below it can be opened');
  check(roots && roots.f.health.every((h) => ['ok', 'progressing', 'bad', 'unknown'].includes(h)), `every root has a rolled-up health (${roots?.f.health})`);
  const opening = requestsDelta(before, await metrics());
  console.log(`figure: requests for the tree view: ${JSON.stringify(opening)}`);
  // One LIST (in pages: one at this script's sizes) and one WATCH per kind.
  const pages = (n) => n >= 1 && n <= 12;
  check(pages(opening['LIST deployments']) && opening['WATCH deployments'] === 1
    && pages(opening['LIST replicasets']) && opening['WATCH replicasets'] === 1
    && pages(opening['LIST pods']) && opening['WATCH pods'] === 1,
    `one LIST and one WATCH per kind (the view's Deployments, and ReplicaSets and Pods below), none per root (${JSON.stringify(opening)})`);

  // Open one root (its twisty): its lines equal the sim's truth, and follow a rollout.
  const name = roots?.t.deps.find((d) => d.metadata.name.startsWith('app-'))?.metadata.name ?? 'app-0';
  // Its lines must be drawn: the first root's are, from the top.
  const uid = roots?.t.deps.find((d) => d.metadata.name === name)?.metadata.uid;
  // Timed in the page: the click to its lines in the DOM.
  const drawnMs = await page.evaluate(async (key) => {
    const t0 = performance.now();
    document.querySelector(`[role=treeitem][data-key="${key}"] .tree-twisty`)?.click();
    while (!document.querySelector('#forest-host [role=treeitem][data-depth="2"]') && performance.now() - t0 < 10000) {
      await new Promise((r) => setTimeout(r, 0));
    }
    return performance.now() - t0;
  }, uid);
  console.log(`figure: a click on a root's twisty to its ReplicaSets and Pods in the DOM ${drawnMs.toFixed(1)} ms`);
  const opened = await until('the opened root to equal the truth', async () => {
    const t = await truth(name);
    const f = await forest(page);
    last = `view [${f?.lines.slice(0, 16)}] sim [${t.lines.slice(0, 16)}]`;
    return drawnAgree(f, t) && t.rss.length > 0 && { t, f };
  }, 30000, 200).catch(() => null);
  check(opened, `an opened Deployment shows its ReplicaSets and their pods, as on the sim: ${last}`);
  const known = new Set(opened ? opened.t.rss : []);
  const rolled = await until('a rollout\'s new ReplicaSet under the opened root', async () => {
    const t = await truth(name);
    const f = await forest(page);
    last = `view [${f?.lines.slice(0, 16)}] sim [${t.lines.slice(0, 16)}]`;
    return t.rss.some((u) => !known.has(u)) && drawnAgree(f, t) && t;
  }, 90000, 200).catch(() => null);
  check(rolled, `after a rollout the opened root shows the new ReplicaSet and the sim's pods: ${last}`);
  const afterRollout = requestsDelta(before, await metrics());
  check(afterRollout['LIST replicasets'] === opening['LIST replicasets'] && afterRollout['LIST pods'] === opening['LIST pods'],
    `a rollout costs no LIST (${JSON.stringify(afterRollout)})`);
  await page.screenshot({ path: `${ARTIFACTS}/forest.png` });
  await axeCheck(page, 'the tree view with a Deployment opened');

  // The keys: one tab stop; Down moves it; Left on an opened root closes it; Right opens it.
  const f1 = await forest(page);
  check(f1?.stops === 1, `one line takes the tab stop (${f1?.stops})`);
  await page.focus(`[role=treeitem][data-key="${uid}"]`);
  await page.click(`[role=treeitem][data-key="${uid}"] .tree-kind`);
  await page.keyboard.press('ArrowLeft');
  const closed = await until('Left to close the root', async () => {
    const f = await forest(page);
    return f && f.lines.every((l) => l.startsWith('0 ')) && f;
  }, 5000).catch(() => null);
  check(closed, `ArrowLeft on an opened root closes it (${closed?.lines.length} lines)`);
  await page.keyboard.press('ArrowRight');
  const reopened = await until('Right to open it again', async () => {
    const f = await forest(page);
    return f && f.lines.some((l) => l.startsWith('1 ')) && f;
  }, 5000).catch(() => null);
  check(reopened, `ArrowRight opens it again (${reopened?.lines.length} lines)`);
  await page.keyboard.press('ArrowDown');
  const moved = await page.evaluate(() => ({
    key: document.activeElement?.dataset.key,
    depth: document.activeElement?.dataset.depth,
  }));
  check(moved.depth === '1', `ArrowDown moves the focus to the first line below (${JSON.stringify(moved)})`);

  // The table and back: the view's engine is shared; no Deployment is listed again.
  const mid = await metrics();
  await page.click('#tree-toggle');
  await until('the table', () => page.evaluate(() => !!document.querySelector('.row:not(.gone)') && !document.getElementById('forest-host')), 10000);
  const hash = await page.evaluate(() => location.hash);
  check(!hash.includes('view=tree'), `the toggle shows the table (${hash})`);
  await page.click('#tree-toggle');
  await until('the forest again', async () => (await forest(page))?.kinds.pods === 'live', 30000);
  const switched = requestsDelta(mid, await metrics());
  check(!switched['LIST deployments'] && !switched['WATCH deployments'],
    `switching to the table and back lists no Deployment again (${JSON.stringify(switched)})`);

  // A root's name opens its detail panel beside the tree; the panel's owner tree
  // listens to the tree view's engines: no LIST or WATCH of its kinds.
  const beforePanel = await metrics();
  await page.click(`[role=treeitem][data-key="${uid}"] a.tree-name`);
  const panel = await until('the root\'s panel', () => page.evaluate((n) => document.getElementById('detail-name')?.textContent === n
    && !!document.getElementById('forest-host') && location.hash, name), 15000).catch(() => null);
  check(panel && panel.includes('view=tree') && panel.includes('open=1'), `a root's name opens its panel beside the tree (${panel})`);
  if (await page.evaluate(() => document.getElementById('owner-tree')?.dataset.state === 'closed')) await page.click('#owner-tree-toggle');
  const panelTree = await until('the panel\'s tree to be live', () => page.evaluate(() => {
    const t = document.getElementById('owner-tree');
    return t?.dataset.state === 'live' && t.querySelectorAll('li[role=treeitem]').length;
  }), 20000).catch(() => 0);
  const panelCost = requestsDelta(beforePanel, await metrics());
  check(panelTree > 1 && !panelCost['LIST replicasets'] && !panelCost['LIST pods'] && !panelCost['WATCH replicasets'] && !panelCost['WATCH pods'],
    `the panel's tree (${panelTree} lines) shares the tree view's engines: no LIST or WATCH of ReplicaSets or Pods (${JSON.stringify(panelCost)})`);
  await page.keyboard.press('Escape');
  await until('the panel to close', () => page.evaluate(() => !document.getElementById('detail')), 5000).catch(() => null);

  // A line's name leads to its object: a pod, in the pods table, its panel open.
  await page.click(`[role=treeitem][data-key="${uid}"] .tree-twisty`);
  const podLine = await until('a pod line', () => page.evaluate(() => {
    const a = document.querySelector('[role=treeitem][data-depth="2"] a.tree-name');
    return a && a.textContent;
  }), 10000).catch(() => null);
  if (podLine) {
    await page.click(`[role=treeitem][data-depth="2"] a.tree-name >> text=${podLine}`);
    const panel = await until('the pod\'s panel', () => page.evaluate((n) => document.getElementById('detail-name')?.textContent === n && location.hash, podLine), 15000).catch(() => null);
    check(panel && panel.includes('r=v1/pods'), `a pod's name opens it in the pods table with its panel (${panel})`);
  } else {
    check(false, 'an opened Deployment has a pod line');
  }

  // Another kind: a StatefulSet over its pods (and PVCs: the sim makes none here).
  const sts = await getJson(`${BASE}/apis/apps/v1/namespaces/${NS}/statefulsets/web-0`).catch(() => null);
  if (sts) {
    const stsPods = (await list(`/api/v1/namespaces/${NS}/pods`, 'pods'))
      .filter((x) => (x.metadata.ownerReferences || []).some((r) => r.uid === sts.metadata.uid))
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
      .map((x) => `1 ${x.metadata.uid}`);
    await page.goto(`${BASE}/ui/#view=tree&r=apps/v1/statefulsets&ns=${NS}`);
    await until('the StatefulSets\' tree view', async () => (await forest(page))?.kinds.pods === 'live', 30000).catch(() => null);
    await page.click(`[role=treeitem][data-key="${sts.metadata.uid}"] .tree-twisty`).catch(() => {});
    const want = [`0 ${sts.metadata.uid}`, ...stsPods];
    const got = await until('the StatefulSet opened', async () => {
      const f = await forest(page);
      last = `view [${f?.lines}] sim [${want}]`;
      return f && f.lines.slice(0, want.length).join() === want.join() && f;
    }, 20000).catch(() => null);
    check(got && stsPods.length > 0, `a StatefulSet opened in the tree view shows its pods: ${last}`);
    check(got && Object.keys(got.kinds).sort().join() === 'persistentvolumeclaims,pods', `a StatefulSet's tree watches pods and PVCs (${JSON.stringify(got?.kinds)})`);
  }

  // A custom resource, whose operator may make any kind: the sim's widget-0 controls
  // a Deployment. The tree view reads the namespace once (a LIST of each kind
  // operators make, stopped at the first object a widget controls) and watches only
  // what the widgets control and what that makes: Deployments, their ReplicaSets and
  // Pods; no Service, ConfigMap, Job... is watched.
  const widget = await getJson(`${BASE}/apis/kubelive.dev/v1/namespaces/${NS}/widgets/widget-0`).catch(() => null);
  check(widget, 'the sim has widget-0');
  if (widget) {
    const operatorKinds = ['deployments', 'statefulsets', 'daemonsets', 'cronjobs', 'jobs', 'pods', 'services', 'configmaps', 'persistentvolumeclaims'];
    const beforeCr = await metrics();
    const crNavigated = Date.now();
    await page.goto(`${BASE}/ui/#view=tree&r=kubelive.dev/v1/widgets&ns=${NS}`);
    const crLive = await until('the widgets\' tree view', async () => {
      const f = await forest(page);
      const probing = await page.evaluate(() => !!document.getElementById('forest-probing'));
      return f && f.synced && !probing && f.roots > 0 && ['deployments', 'replicasets', 'pods'].every((k) => f.kinds[k] === 'live') && f;
    }, 60000, 50).catch(() => null);
    console.log(`figure: the widgets' tree view, its kinds read and watched, live ${Date.now() - crNavigated} ms`);
    check(crLive && Object.keys(crLive.kinds).sort().join() === 'deployments,pods,replicasets',
      `below widgets: the Deployments they control, their ReplicaSets and Pods, nothing else (${JSON.stringify(crLive?.kinds)})`);
    await page.click(`[role=treeitem][data-key="${widget.metadata.uid}"] .tree-twisty`).catch(() => {});
    const crTruth = async () => {
      const owned = (items, uid) => items.filter((o) => (o.metadata.ownerReferences || []).some((r) => r.uid === uid));
      const byName = (a, b) => a.metadata.name.localeCompare(b.metadata.name);
      const deps = owned(await list(`/apis/apps/v1/namespaces/${NS}/deployments`, 'deployments'), widget.metadata.uid);
      const rss = await list(`/apis/apps/v1/namespaces/${NS}/replicasets`, 'replicasets');
      const pods = await list(`/api/v1/namespaces/${NS}/pods`, 'pods');
      const lines = [`0 ${widget.metadata.uid}`];
      for (const d of deps.sort(byName)) {
        lines.push(`1 ${d.metadata.uid}`);
        for (const rs of owned(rss, d.metadata.uid).sort(byName)) {
          lines.push(`2 ${rs.metadata.uid}`);
          for (const p of owned(pods, rs.metadata.uid).sort(byName)) lines.push(`3 ${p.metadata.uid}`);
        }
      }
      return lines;
    };
    const crOpened = await until('widget-0 opened, equal to the truth', async () => {
      const want = await crTruth();
      const f = await forest(page);
      last = `view [${f?.lines.slice(0, 16)}] sim [${want.slice(0, 16)}]`;
      return want.length > 3 && f && f.lines.slice(0, want.length).join() === want.join() && f;
    }, 30000, 200).catch(() => null);
    check(crOpened, `widget-0 opened shows its Deployment, its ReplicaSets and their pods, as on the sim: ${last}`);
    const crCost = requestsDelta(beforeCr, await metrics());
    console.log(`figure: requests for the widgets' tree view: ${JSON.stringify(crCost)}`);
    check(operatorKinds.every((k) => crCost[`LIST ${k}`] >= 1)
      && ['deployments', 'replicasets', 'pods'].every((k) => crCost[`WATCH ${k}`] === 1)
      && operatorKinds.filter((k) => !['deployments', 'pods'].includes(k)).every((k) => !crCost[`WATCH ${k}`]),
      `one read of each kind operators make, then a WATCH of the three widgets control only (${JSON.stringify(crCost)})`);
    // widget-0's panel beside the tree: its tree is the same, from what the page read
    // and watches already (no LIST or WATCH of any kind below).
    const beforeCrPanel = await metrics();
    await page.click(`[role=treeitem][data-key="${widget.metadata.uid}"] a.tree-name`);
    await until('widget-0\'s panel', () => page.evaluate(() => document.getElementById('detail-name')?.textContent === 'widget-0'), 15000).catch(() => null);
    if (await page.evaluate(() => document.getElementById('owner-tree')?.dataset.state === 'closed')) await page.click('#owner-tree-toggle');
    const crPanel = await until('widget-0\'s panel tree', () => page.evaluate(() => {
      const t = document.getElementById('owner-tree');
      const items = t ? [...t.querySelectorAll('li[role=treeitem]')] : [];
      return t?.dataset.state === 'live' && items.length > 3 && items.map((li) => li.querySelector('.tree-line')?.dataset.kind);
    }), 20000, 100).catch(() => null);
    const crPanelCost = requestsDelta(beforeCrPanel, await metrics());
    check(crPanel && crPanel[0] === 'Widget' && crPanel[1] === 'Deployment' && crPanel.slice(2).every((k) => k === 'ReplicaSet' || k === 'Pod'),
      `widget-0's panel tree: it over its Deployment over ReplicaSets and Pods (${crPanel})`);
    check(operatorKinds.concat(['replicasets']).every((k) => !crPanelCost[`LIST ${k}`] && !crPanelCost[`WATCH ${k}`]),
      `the panel's tree reads and watches nothing more (${JSON.stringify(crPanelCost)})`);
    await page.keyboard.press('Escape');
  }

  // 800 and 360 px: nothing scrolls sideways, and the Tree toggle is on screen.
  await page.goto(`${BASE}/ui/#view=tree&r=apps/v1/deployments&ns=${NS}`);
  for (const width of [800, 360]) {
    await page.setViewportSize({ width, height: 900 });
    await until(`the forest at ${width} px`, async () => (await forest(page))?.roots > 0, 30000);
    await page.waitForTimeout(200);
    const fits = await page.evaluate(() => {
      const s = document.getElementById('forest');
      const t = document.getElementById('tree-toggle')?.getBoundingClientRect();
      return s && t && s.scrollWidth <= s.clientWidth + 1 && document.documentElement.scrollWidth <= innerWidth + 1
        && t.left >= 0 && t.right <= innerWidth && t.width > 0 && `${s.scrollWidth}/${s.clientWidth}`;
    });
    check(fits, `the tree view and its toggle fit a ${width} px window (${fits})`);
    await page.screenshot({ path: `${ARTIFACTS}/forest-${width}.png` });
  }
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
} finally {
  await browser.close();
}
done('forest');
