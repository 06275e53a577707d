// Issue 29, an object's history: the detail panel of a pod lists every version of it
// the watch delivered while it is open, newest first, each with its resourceVersion,
// kind and changes. A pod just created (Pending) is opened, so that the sim's workload
// changes it while the panel is open (it starts, restarts, is deleted). This script
// watches the same pod from the version it read when the panel opened: the panel's
// entries past that version equal the versions the sim wrote (kinds included), the
// newest is the sim's current version, its changes leave managedFields and
// resourceVersion out, and the history fits a window 800 px wide.
import { launch, openPage, until, check, done, getJson, openNewPendingPod, ARTIFACTS } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const browser = await launch();

/** Watches `ns/name` from `rv` (node side): the versions the sim writes, as they come. */
function watchPod(ns, name, rv) {
  const seen = [];
  const abort = new AbortController();
  const url = `${BASE}/api/v1/namespaces/${ns}/pods?watch=true&allowWatchBookmarks=false`
    + `&fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}&resourceVersion=${rv}`;
  const running = (async () => {
    const r = await fetch(url, { signal: abort.signal });
    let buf = '';
    for await (const chunk of r.body) {
      buf += Buffer.from(chunk).toString('utf8');
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.trim()) continue;
        const e = JSON.parse(line);
        if (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED') {
          seen.push(`${e.type.toLowerCase()} ${e.object.metadata.resourceVersion}`);
        }
      }
    }
  })().catch(() => {});
  return { seen, stop: () => { abort.abort(); return running; } };
}

/** The panel's history: its watch's state and its entries in order. */
const panelHistory = (page) => page.evaluate(() => {
  const section = document.getElementById('detail-history');
  if (!section) return null;
  return {
    state: section.dataset.state,
    entries: [...section.querySelectorAll('li.history-entry')].map((li) => ({
      kind: li.dataset.kind,
      rv: li.dataset.rv,
      head: li.querySelector('h5')?.textContent ?? '',
      paths: [...li.querySelectorAll('li.change')].map((c) => c.dataset.path),
    })),
  };
});

try {
  const { page, problems } = await openPage(browser, { viewport: { width: 1400, height: 1600 } });
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${BASE}/ui/#r=v1/pods`);
  await until('the first sync', () => page.evaluate(() => document.getElementById('status')?.dataset.synced === 'true'), 60000);

  // A pod just created, opened; its version when the panel opened is read after the
  // panel's watch is live, and the script watches it from there. A pod the workload
  // deletes before it changes it once has a history of one deletion: it is noted, and
  // another pod is opened (up to 3).
  let converged = null;
  let last = '';
  let from;
  let sim;
  const endedEarly = [];
  for (let attempt = 0; attempt < 3 && !converged; attempt++) {
    await sim?.stop();
    const young = await until('a new Pending pod, opened', () => openNewPendingPod(page, BASE), 30000, 300);
    const { namespace: ns, name } = young.metadata;
    const live = await until('the panel\'s watch of the pod', async () => (await panelHistory(page))?.state === 'live', 15000).catch(() => false);
    check(live, `the history of ${ns}/${name} is live`);
    const watch = requests.find((u) => u.includes(`/api/v1/namespaces/${ns}/pods?`) && u.includes('watch=true')
      && decodeURIComponent(u).includes(`fieldSelector=metadata.name=${name}`));
    check(watch, `the panel watches the pod by name (${watch && decodeURIComponent(new URL(watch).search)})`);
    // The pod may be gone already (the workload deletes pods): then its history ends.
    const now = await fetch(`${BASE}/api/v1/namespaces/${ns}/pods/${name}`).then((r) => (r.ok ? r.json() : null));
    from = Number(now ? now.metadata.resourceVersion : young.metadata.resourceVersion);
    sim = watchPod(ns, name, from);

    // The sim changes the pod: the panel's entries past `from` equal the versions the
    // sim wrote, newest first, and the newest is the pod's version on the server now.
    const outcome = await until('the panel\'s history to equal the sim\'s versions', async () => {
      const server = await fetch(`${BASE}/api/v1/namespaces/${ns}/pods/${name}`).then((r) => (r.ok ? r.json() : null));
      const h = await panelHistory(page);
      if (!h) return false;
      const shown = h.entries.filter((e) => Number(e.rv) > from).map((e) => `${e.kind} ${e.rv}`);
      const wrote = [...sim.seen].reverse();
      last = `panel [${shown}] sim [${wrote}] server rv ${server?.metadata.resourceVersion ?? '(gone)'}`;
      const newest = h.entries[0];
      const current = server ? newest?.rv === server.metadata.resourceVersion : newest?.kind === 'deleted';
      const same = shown.join() === wrote.join() && current;
      if (same && !server && wrote.length === 1) return { ended: `${ns}/${name}: ${last}` };
      return wrote.length >= 2 && same && { history: h };
    }, 90000, 250).catch(() => null);
    if (outcome?.ended) endedEarly.push(outcome.ended);
    else converged = outcome?.history ?? null;
    if (!outcome) break;
  }
  if (endedEarly.length) console.log(`  (deleted before any change, another pod opened: ${endedEarly.join('; ')})`);
  check(converged, `the history equals the versions the sim wrote since the panel opened, newest first: ${last}`);
  await sim.stop();
  if (converged) {
    const modified = converged.entries.filter((e) => e.kind === 'modified' && Number(e.rv) > from);
    check(modified.length >= 1 && modified.every((e) => e.head.includes(`rv ${e.rv}`) && /ago$/.test(e.head.trim())),
      `each entry is headed by its kind, version and age (${modified.map((e) => e.head).join(' | ')})`);
    check(modified.some((e) => e.paths.length > 0), `the changes are listed (${modified.map((e) => e.paths.join(',')).join(' | ')})`);
    const noise = converged.entries.flatMap((e) => e.paths).filter((p) => /managedFields|metadata\.resourceVersion|metadata\.generation$/.test(p));
    check(noise.length === 0, `no managedFields, resourceVersion or generation among the paths (${noise})`);
  }
  await page.evaluate(() => document.getElementById('detail-history')?.scrollIntoView());
  await page.screenshot({ path: `${ARTIFACTS}/history.png` });

  // An 800 px window: the panel's history does not scroll sideways.
  await page.setViewportSize({ width: 800, height: 900 });
  await page.waitForTimeout(300);
  await page.evaluate(() => document.getElementById('detail-history')?.scrollIntoView());
  const fits = await page.evaluate(() => {
    const s = document.getElementById('detail-history');
    const d = document.getElementById('detail');
    return s && d && s.scrollWidth <= s.clientWidth + 1 && s.getBoundingClientRect().right <= d.getBoundingClientRect().right + 1
      && `${s.scrollWidth}/${s.clientWidth}`;
  });
  check(fits, `the history fits an 800 px window (${fits})`);
  await page.screenshot({ path: `${ARTIFACTS}/history-800.png` });
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
} finally {
  await browser.close();
}
done('history');
