// Issue 29, the owner tree of the detail panel: a Deployment's panel shows it, its
// ReplicaSets and their pods, live. Against the sim rolling its Deployments over
// (`--rollout-every`): the tree equals the sim's truth (the ReplicaSets the
// Deployment owns and the pods each owns, by uid, read from the sim's API); a rollout's
// new ReplicaSet and the pods it makes appear, and the tree equals the truth again.
// The apiserver's cost is read on the sim's /metrics: one LIST of each kind involved
// for the tree, none per node, none for a rollout (the watches carry it). The tree
// fits a window 800 px wide and its lines are reachable with the keyboard (one tab
// stop, the arrow keys; axe-core finds no serious violation). A pod's tree shows its ReplicaSet and Deployment above it.
// A StatefulSet's tree is it over its pods, its Ready the row's. The tree is hidden
// until asked for (its Show button). Figures (logged): the time
// from Show to the whole tree, and the requests per kind.
import { launch, openPage, until, check, done, getJson, apiRequests, requestsDelta, ARTIFACTS } from './lib.mjs';
import { axeCheck } from './axe.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const NS = process.env.TREE_NS || 'ns-0';
const APP = process.env.TREE_APP || 'app-0';
const browser = await launch();

/** LISTs this script made of each resource (subtracted from the sim's counts). */
const ownLists = { pods: 0, replicasets: 0, deployments: 0 };

async function list(path, resource) {
  ownLists[resource] += 1;
  return (await getJson(`${BASE}${path}`)).items;
}

/** The sim's requests by verb and resource (LIST and WATCH), less this script's LISTs. */
async function metrics() {
  const m = await apiRequests(BASE);
  for (const [r, n] of Object.entries(ownLists)) m[`LIST ${r}`] = (m[`LIST ${r}`] || 0) - n;
  return m;
}

const delta = requestsDelta;

/** The owners above `o` on the sim, root first: each controller reference read by a GET. */
async function ownersAbove(o) {
  const chain = [];
  let at = o;
  for (let i = 0; i < 8; i++) {
    const r = (at.metadata.ownerReferences || []).find((x) => x.controller);
    if (!r) break;
    const base = r.apiVersion.includes('/') ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`;
    at = await getJson(`${BASE}${base}/namespaces/${NS}/${r.kind.toLowerCase()}s/${r.name}`);
    chain.unshift({ uid: at.metadata.uid, kind: at.kind });
  }
  return chain;
}

/** The sim's truth: the Deployment's owners (the sim's widget-0 controls app-0), the
 * Deployment (at depth `top`), its ReplicaSets and their pods, as `depth uid` lines. */
async function truth() {
  const d = await getJson(`${BASE}/apis/apps/v1/namespaces/${NS}/deployments/${APP}`);
  const above = await ownersAbove(d);
  const top = above.length;
  const owned = (items, uid) => items.filter((o) => (o.metadata.ownerReferences || []).some((r) => r.uid === uid));
  const rss = owned(await list(`/apis/apps/v1/namespaces/${NS}/replicasets`, 'replicasets'), d.metadata.uid);
  const pods = await list(`/api/v1/namespaces/${NS}/pods`, 'pods');
  const lines = [...above.map((o, i) => `${i} ${o.uid}`), `${top} ${d.metadata.uid}`];
  const byName = (a, b) => a.metadata.name.localeCompare(b.metadata.name);
  for (const rs of rss.sort(byName)) {
    lines.push(`${top + 1} ${rs.metadata.uid}`);
    for (const p of owned(pods, rs.metadata.uid).sort(byName)) lines.push(`${top + 2} ${p.metadata.uid}`);
  }
  return { lines, top, above: above.map((o) => o.kind), rss: rss.map((r) => r.metadata.uid) };
}

/** The panel's tree: its state and its lines as `depth uid`, plus the health of each. */
const panelTree = (page) => page.evaluate(() => {
  const s = document.getElementById('owner-tree');
  if (!s) return null;
  const items = [...s.querySelectorAll('li[role=treeitem]')];
  return {
    state: s.dataset.state,
    took: s.parentElement?.dataset.tookMs,
    lines: items.map((li) => `${li.dataset.depth} ${li.querySelector('.tree-line')?.dataset.uid ?? li.dataset.key}`),
    kinds: items.map((li) => li.querySelector('.tree-line')?.dataset.kind),
    health: items.map((li) => li.querySelector('.tree-line')?.dataset.health),
    own: items.map((li) => li.querySelector('.tree-line')?.dataset.ownHealth),
    stops: s.querySelectorAll('[role=treeitem][tabindex="0"]').length,
  };
});

/** In the page, before the app: when each object's uid first came in a watch's bytes
 * (the responses are read on a tee, the app gets the same bytes), and when a tree line
 * of that uid was first in the DOM. */
function recordArrivals() {
  window.__arrived = new Map();
  window.__drawn = new Map();
  const decoder = new TextDecoder();
  const seen = (text) => {
    const t = performance.now();
    for (const m of text.matchAll(/"uid":"([0-9a-f-]{36})"/g)) if (!window.__arrived.has(m[1])) window.__arrived.set(m[1], t);
  };
  const fetch0 = window.fetch;
  window.fetch = async function (input, init) {
    const res = await fetch0.call(this, input, init);
    if (!String(input).includes('watch=') || !res.body) return res;
    const [mine, app] = res.body.tee();
    (async () => {
      const r = mine.getReader();
      for (;;) {
        const { value, done } = await r.read().catch(() => ({ done: true }));
        if (done) return;
        seen(decoder.decode(value, { stream: true }));
      }
    })();
    return new Response(app, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  new MutationObserver(() => {
    const t = performance.now();
    for (const el of document.querySelectorAll('#owner-tree .tree-line[data-uid]')) {
      if (!window.__drawn.has(el.dataset.uid)) window.__drawn.set(el.dataset.uid, t);
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-uid'] });
}

try {
  const { page, problems } = await openPage(browser, { viewport: { width: 1400, height: 1600 } });
  await page.addInitScript(recordArrivals);
  await page.goto(`${BASE}/ui/#r=apps/v1/deployments&ns=${NS}`);
  await until('the first sync', () => page.evaluate(() => document.getElementById('status')?.dataset.synced === 'true'), 60000);
  const row = `.row:not(.gone)[data-key="${NS}/${APP}"]`;
  await page.waitForSelector(row, { timeout: 30000 });

  await page.dblclick(row);
  await until('the panel', () => page.evaluate((n) => document.getElementById('detail-name')?.textContent === n, APP), 10000);
  // Hidden by default (a browser's six connections to kubectl proxy): no watch of it yet.
  const closed = await panelTree(page);
  check(closed?.state === 'closed' && closed.lines.length === 0, `the tree is hidden until asked for (${closed?.state})`);
  const before = await metrics();
  const opened = Date.now();
  await page.click('#owner-tree-toggle');
  const live = await until('the tree to be live', async () => (await panelTree(page))?.state === 'live', 30000, 20).catch(() => false);
  const wall = Date.now() - opened;
  check(live, `the tree of ${NS}/${APP} is live`);
  const first = await panelTree(page);
  console.log(`figure: Show to the whole tree ${wall} ms (wall, the panel's own count ${first?.took} ms), ${first?.lines.length} lines`);

  // The tree equals the sim's truth (rollouts move it: read both until they agree).
  let last = '';
  const agree = async (what, extra = () => true) => until(what, async () => {
    const t = await truth();
    const p = await panelTree(page);
    last = `panel [${p?.lines}] sim [${t.lines}]`;
    return p && p.lines.join() === t.lines.join() && extra(t, p) && { t, p };
  }, 60000, 200).catch(() => null);
  const start = await agree('the tree to equal the sim\'s truth');
  check(start, `the tree equals the Deployment's ReplicaSets and their pods on the sim: ${last}`);
  if (start) {
    const { top, above } = start.t;
    check(start.p.kinds.slice(0, top).join() === above.join() && start.p.kinds[top] === 'Deployment'
      && start.p.kinds.slice(top + 1).every((k) => k === 'ReplicaSet' || k === 'Pod'),
      `its owners (${above}, a custom resource's, one GET each) over the Deployment over ReplicaSets over Pods (${start.p.kinds})`);
    check(APP !== 'app-0' || above.join() === 'Widget', `the sim's widget-0 controls app-0 (${above})`);
    check(start.p.health.every((h) => ['ok', 'progressing', 'bad', 'unknown'].includes(h)), `every line has a health (${start.p.health})`);
    // The roll-up: a line's health is the worst of its own and its dependents'.
    const rank = (h) => ['unknown', 'ok', 'progressing', 'bad'].indexOf(h);
    const depth = start.p.lines.map((l) => Number(l.split(' ')[0]));
    const rolled = start.p.lines.every((_, i) => {
      let worst = rank(start.p.own[i]);
      for (let j = i + 1; j < depth.length && depth[j] > depth[i]; j++) if (depth[j] === depth[i] + 1) worst = Math.max(worst, rank(start.p.health[j]));
      return rank(start.p.health[i]) === worst;
    });
    check(rolled, `each line's health is the worst of its own and its dependents' (${start.p.own} / ${start.p.health})`);
  }
  const opening = delta(before, await metrics());
  console.log(`figure: requests for the tree: ${JSON.stringify(opening)}`);
  check(opening['LIST replicasets'] === 1 && opening['LIST pods'] === 1 && opening['WATCH replicasets'] === 1 && opening['WATCH pods'] === 1
    && !opening['LIST deployments'] && !opening['WATCH deployments'],
    `one LIST and one WATCH of replicasets and of pods for the tree, none per node, none of the Deployment (the panel's copy) (${JSON.stringify(opening)})`);

  // A rollout: a new ReplicaSet the tree did not show, with its pods, then the tree
  // equals the truth again.
  const known = new Set(start ? start.t.rss : []);
  const afterRollout = await until('a rollout\'s new ReplicaSet in the tree, equal to the truth', async () => {
    const t = await truth();
    const p = await panelTree(page);
    last = `panel [${p?.lines}] sim [${t.lines}]`;
    const fresh = t.rss.filter((u) => !known.has(u));
    return fresh.length > 0 && p && p.lines.join() === t.lines.join() && { t, p, fresh };
  }, 90000, 200).catch(() => null);
  check(afterRollout, `after a rollout the tree shows the new ReplicaSet and the sim's pods: ${last}`);
  if (afterRollout) {
    const { p, fresh, t: { top } } = afterRollout;
    check(fresh.every((u) => p.lines.includes(`${top + 1} ${u}`)), `the new ReplicaSet ${fresh} is a line under the Deployment`);
    // The pods move: wait until the new ReplicaSet holds pods and the tree agrees.
    const moved = await agree('pods under the new ReplicaSet', (t) => {
      const at = t.lines.indexOf(`${top + 1} ${fresh[0]}`);
      return at >= 0 && t.lines[at + 1]?.startsWith(`${top + 2} `);
    });
    check(moved, `pods made by the new ReplicaSet appear under it: ${last}`);
    // How long from the bytes of its ADDED event to its line in the tree.
    const firstPod = moved && moved.t.lines[moved.t.lines.indexOf(`${top + 1} ${fresh[0]}`) + 1]?.split(' ')[1];
    const lag = await page.evaluate(([rs, pod]) => [rs, pod].map((u) => u && window.__drawn.has(u) && window.__arrived.has(u)
      ? (window.__drawn.get(u) - window.__arrived.get(u)).toFixed(1) : null), [fresh[0], firstPod]);
    console.log(`figure: a rollout's new ReplicaSet drawn ${lag[0]} ms after its event's bytes came, its first pod ${lag[1]} ms`);
    check(lag[0] !== null && lag[1] !== null, `the new ReplicaSet's and its first pod's events were seen and drawn (${lag})`);
  }
  const total = delta(before, await metrics());
  console.log(`figure: requests from opening the panel to past a rollout: ${JSON.stringify(total)}`);
  check((total['LIST replicasets'] || 0) <= 1 && (total['LIST pods'] || 0) <= 1,
    `a rollout costs no LIST: the watches carry it (${JSON.stringify(total)})`);
  await page.evaluate(() => document.getElementById('owner-tree')?.scrollIntoView());
  await page.screenshot({ path: `${ARTIFACTS}/tree.png` });

  await axeCheck(page, 'the detail panel with its owner tree shown');

  // The keyboard: one tab stop; Down moves it to the next line.
  const p = await panelTree(page);
  check(p && p.stops === 1, `one line of the tree takes the tab stop (${p?.stops})`);
  await page.focus('#owner-tree [role=treeitem][tabindex="0"]');
  const from = await page.evaluate(() => document.activeElement?.dataset.key);
  await page.keyboard.press('ArrowDown');
  const to = await page.evaluate(() => document.activeElement?.closest('#owner-tree') && document.activeElement.dataset.key);
  check(from && to && from !== to, `ArrowDown moves the focus along the tree, not the table's selection (${from} -> ${to})`);
  const selected = await page.evaluate(() => document.getElementById('detail-name')?.textContent);
  check(selected === APP, `the panel still shows ${APP} (${selected})`);

  // A pod's tree: its ReplicaSet and Deployment above it (and the Deployment's
  // widget, if it has one; one GET each), by uid.
  const pod = (await list(`/api/v1/namespaces/${NS}/pods`, 'pods'))
    .find((x) => !x.metadata.deletionTimestamp && (x.metadata.ownerReferences || [])[0]?.kind === 'ReplicaSet');
  const podAbove = await ownersAbove(pod);
  await page.goto(`${BASE}/ui/#r=v1/pods&ns=${NS}`);
  await until('the pods', () => page.evaluate(() => document.getElementById('status')?.dataset.synced === 'true'), 60000);
  const podRow = `.row:not(.gone)[data-key="${NS}/${pod.metadata.name}"]`;
  await page.waitForSelector(podRow, { timeout: 30000 });
  await page.dblclick(podRow);
  await until('the pod\'s panel', () => page.evaluate((n) => document.getElementById('detail-name')?.textContent === n, pod.metadata.name), 10000);
  if ((await panelTree(page))?.state === 'closed') await page.click('#owner-tree-toggle');
  const up = [...podAbove.map((o, i) => `${i} ${o.uid}`), `${podAbove.length} ${pod.metadata.uid}`];
  const owners = await until('the pod\'s owners', async () => {
    const t = await panelTree(page);
    last = `panel [${t?.lines}] sim [${up}]`;
    return t && t.state === 'live' && t.lines.join() === up.join() && t;
  }, 20000, 100).catch(() => null);
  check(owners, `a pod's tree is its Deployment over its ReplicaSet over it: ${last}`);
  check(owners && owners.kinds.slice(-3).join() === 'Deployment,ReplicaSet,Pod', `by kind (${owners?.kinds})`);

  // A StatefulSet's tree: its pods (by uid), and its own line shows the Ready the
  // server printed for the view's row (the panel's copy has no printer for its kind).
  const sts = await getJson(`${BASE}/apis/apps/v1/namespaces/${NS}/statefulsets/web-0`);
  const stsPods = (await list(`/api/v1/namespaces/${NS}/pods`, 'pods'))
    .filter((x) => (x.metadata.ownerReferences || []).some((r) => r.uid === sts.metadata.uid))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
    .map((x) => `1 ${x.metadata.uid}`);
  await page.goto(`${BASE}/ui/#r=apps/v1/statefulsets&ns=${NS}`);
  const stsRow = `.row:not(.gone)[data-key="${NS}/web-0"]`;
  await page.waitForSelector(stsRow, { timeout: 30000 });
  await page.dblclick(stsRow);
  await until('the StatefulSet\'s panel', () => page.evaluate(() => document.getElementById('detail-name')?.textContent === 'web-0'), 10000);
  if ((await panelTree(page))?.state === 'closed') await page.click('#owner-tree-toggle');
  const stsWant = [`0 ${sts.metadata.uid}`, ...stsPods];
  const stsTree = await until('the StatefulSet\'s tree', async () => {
    const t = await panelTree(page);
    last = `panel [${t?.lines}] sim [${stsWant}]`;
    return t && t.state === 'live' && t.lines.join() === stsWant.join() && t;
  }, 20000, 100).catch(() => null);
  check(stsTree && stsPods.length === 3, `a StatefulSet's tree is it over its pods: ${last}`);
  const readies = await page.evaluate(() => {
    const col = [...document.querySelectorAll('#detail-cells dt')].findIndex((dt) => dt.textContent.toLowerCase() === 'ready');
    return {
      row: col >= 0 ? document.querySelectorAll('#detail-cells dd')[col]?.textContent : null,
      tree: document.querySelector('#owner-tree li.current .tree-ready')?.textContent ?? null,
    };
  });
  check(readies.row && readies.tree === readies.row, `its line's Ready is the row's (${readies.tree} / ${readies.row})`);

  // An 800 px window: the tree does not scroll sideways.
  await page.setViewportSize({ width: 800, height: 900 });
  await page.waitForTimeout(300);
  await page.evaluate(() => document.getElementById('owner-tree')?.scrollIntoView());
  const fits = await page.evaluate(() => {
    const s = document.getElementById('owner-tree');
    const d = document.getElementById('detail');
    return s && d && s.scrollWidth <= s.clientWidth + 1 && s.getBoundingClientRect().right <= d.getBoundingClientRect().right + 1
      && `${s.scrollWidth}/${s.clientWidth}`;
  });
  check(fits, `the tree fits an 800 px window (${fits})`);
  await axeCheck(page, 'the owner tree at 800 px');
  await page.screenshot({ path: `${ARTIFACTS}/tree-800.png` });
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
} finally {
  await browser.close();
}
done('tree');
