// Discovery as a user meets it: time from the wasm's arrival to the full resource
// picker (every listable resource of every group the server's legacy documents name)
// and to the first synced table, and the discovery requests made, with Chromium's
// network emulation adding LATENCY ms to every request. Each URL is an app served by
// kubectl proxy in front of one sim (e.g. two builds, before and after). The builds
// take turns, run by run, so that the machine's load falls on both alike; medians of
// RUNS. `cargo xtask bench discovery` starts what it needs and runs this.
//   BUILDS="before=http://127.0.0.1:8002,after=http://127.0.0.1:8001" node bench/discovery.mjs
import { launch, getJson } from '../tests/lib.mjs';

const builds = (process.env.BUILDS || 'app=http://127.0.0.1:8001').split(',').map((b) => b.split('='));
const latency = Number(process.env.LATENCY || 40);
const runs = Number(process.env.RUNS || 5);

/** What a full picker holds: `group/version/plural` of each resource with list and watch. */
async function listable(base) {
  const ids = [];
  const add = (gv, doc) => {
    for (const r of doc.resources) if (!r.name.includes('/') && r.verbs.includes('list') && r.verbs.includes('watch')) ids.push(`${gv}/${r.name}`);
  };
  add('v1', await getJson(`${base}/api/v1`));
  const groups = await getJson(`${base}/apis`);
  for (const g of groups.groups) add(g.preferredVersion.groupVersion, await getJson(`${base}/apis/${g.preferredVersion.groupVersion}`));
  return { ids, groups: groups.groups.length + 1 };
}

async function once(browser, base, want) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency, downloadThroughput: -1, uploadThroughput: -1 });
    let requests = 0;
    page.on('request', (r) => {
      const p = new URL(r.url()).pathname;
      // /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>; not a collection.
      if (r.method() === 'GET' && /^\/apis?(\/[^/]+){0,2}$/.test(p) && !/^\/api\/v1\/[^/]+$/.test(p)) requests += 1;
    });
    await page.goto(`${base}/ui/#r=v1/pods`);
    await page.waitForFunction((ids) => {
      const shown = new Set([...document.querySelectorAll('#resource option')].map((o) => o.value));
      return ids.every((id) => shown.has(id));
    }, want, { timeout: 60000, polling: 5 });
    const picker = await page.evaluate(() => performance.now());
    await page.waitForFunction(() => document.getElementById('status')?.dataset.synced === 'true', null, { timeout: 60000, polling: 5 });
    const synced = await page.evaluate(() => performance.now());
    const wasm = await page.evaluate(() => performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'))?.responseEnd ?? 0);
    return { picker: picker - wasm, synced: synced - wasm, requests };
  } finally {
    await context.close();
  }
}

const browser = await launch();
try {
  const { ids, groups } = await listable(builds[0][1]);
  const got = Object.fromEntries(builds.map(([label]) => [label, []]));
  for (let i = 0; i < runs; i++) {
    for (const [label, base] of builds) got[label].push(await once(browser, base, ids));
  }
  const median = (label, k) => got[label].map((r) => r[k]).sort((a, b) => a - b)[Math.floor(runs / 2)];
  console.log(`${groups} API groups, ${ids.length} listable resources; Chromium adds ${latency} ms to each request; median of ${runs}, builds alternating`);
  console.log('| build | discovery requests | full resource picker | first synced table |');
  console.log('|---|---|---|---|');
  for (const [label] of builds) {
    console.log(`| ${label} | ${median(label, 'requests')} | ${median(label, 'picker').toFixed(0)} ms | ${median(label, 'synced').toFixed(0)} ms |`);
  }
  if (builds.length === 2) {
    const [[a], [b]] = builds;
    console.log(`\n${a} / ${b}: full picker ${(median(a, 'picker') / median(b, 'picker')).toFixed(1)}x, synced table ${(median(a, 'synced') / median(b, 'synced')).toFixed(1)}x, requests ${(median(a, 'requests') / median(b, 'requests')).toFixed(1)}x`);
  }
  console.log(`raw: ${JSON.stringify(got)}`);
} finally {
  await browser.close();
}
