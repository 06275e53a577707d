// Issue 13, related events, live: the detail panel of a pod watches that pod's events
// (a second watch, `fieldSelector=involvedObject.uid=...`) while the workload runs.
// The sim's workload writes core/v1 Events as the scheduler and kubelet do
// (Scheduled, Pulling, Pulled, Created, Started, Killing, Unhealthy, BackOff; repeats
// update `count`). A pod that has just been created is opened, so that its events
// keep coming while the panel is open; the panel converges to the server's events for
// it (reasons and counts, newest first), again after new ones came, the ages move, and
// closing the panel aborts the events watch.
import { launch, openPage, until, check, done, getJson, openNewPendingPod, ARTIFACTS } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const browser = await launch();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** When an event last happened, as the app orders them (seconds; 0 if unknown). */
const lastOf = (e) => Date.parse(e.series?.lastObservedTime || e.lastTimestamp || e.eventTime || e.firstTimestamp || e.metadata.creationTimestamp || 0) / 1000 || 0;

/** The server's events about `uid`, newest first, as `reason xCOUNT`. */
async function serverEvents(ns, uid) {
  const list = await getJson(`${BASE}/api/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent(`involvedObject.uid=${uid}`)}`);
  return list.items
    .sort((a, b) => lastOf(b) - lastOf(a) || (a.metadata.name < b.metadata.name ? -1 : 1))
    .map((e) => `${e.reason} x${e.series?.count ?? e.count ?? 1}`);
}

/** The panel's events, in its order, as `reason xCOUNT`. */
const panelEvents = (page) => page.evaluate(() => {
  const section = document.getElementById('related-events');
  if (!section || section.dataset.state !== 'live') return null;
  return [...section.querySelectorAll('li.event')].map((li) => {
    const count = /\(x(\d+) over/.exec(li.querySelector('.ev-age').textContent)?.[1] ?? '1';
    return `${li.dataset.reason} x${count}`;
  });
});

/** How much happened: the events' counts summed. */
const weight = (events) => events.reduce((n, e) => n + Number(e.split(' x')[1]), 0);

/** Waits until the panel shows what the server holds (read before and after it), and
 * more happened than `more`. */
async function converge(page, ns, uid, what, more = 0) {
  let last = '';
  const found = await until(what, async () => {
    const before = await serverEvents(ns, uid);
    const shown = await panelEvents(page);
    const after = await serverEvents(ns, uid);
    last = `panel [${shown}] server [${after}]`;
    return shown && before.join() === after.join() && shown.join() === after.join() && weight(after) > more && after;
  }, 60000, 200).catch(() => null);
  check(found, `${what}: ${last}`);
  return found || [];
}

try {
  const { page, problems } = await openPage(browser, { viewport: { width: 1400, height: 2600 } });
  const requests = [];
  const aborted = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('requestfailed', (r) => aborted.push(r.url()));
  await page.goto(`${BASE}/ui/#r=v1/pods`);
  await until('the first sync', () => page.evaluate(() => document.getElementById('status')?.dataset.synced === 'true'), 60000);

  // A pod just created (Pending): its start is still to come in its events. The
  // workload may delete it before the double click lands: then another is taken. It
  // may also be deleted before the panel first converges (a Killing among its first
  // events): then nothing more will happen to it, and the panel is closed and another
  // pod opened (the watch of each must still be the panel's).
  let ns;
  let name;
  let uid;
  let first = [];
  for (let attempt = 1; attempt <= 4; attempt++) {
    const young = await until('a new Pending pod, opened', () => openNewPendingPod(page, BASE), 30000, 300);
    ns = young.metadata.namespace;
    ({ name, uid } = young.metadata);
    const watch = await until('the events watch', () => requests.find((u) => u.includes(`/api/v1/namespaces/${ns}/events?`)
      && u.includes('watch=true') && decodeURIComponent(u).includes(`fieldSelector=involvedObject.uid=${uid}`)), 10000).catch(() => null);
    check(watch, `the panel watches the pod's events (${watch && decodeURIComponent(new URL(watch).search)})`);
    first = await converge(page, ns, uid, `the panel shows ${name}'s events as the server has them`);
    if (!first.some((e) => e.startsWith('Killing ')) || attempt === 4) break;
    console.log(`  (${name} was deleted before the panel first converged; another pod, attempt ${attempt + 1})`);
    await page.click('#close-detail');
    await until('the panel to close', () => page.evaluate(() => !document.getElementById('detail')), 5000);
  }
  await converge(page, ns, uid, `and again after more happened than its ${weight(first)} occurrence(s) (the pod started, restarted or was deleted)`, weight(first));
  await page.screenshot({ path: `${ARTIFACTS}/events.png`, clip: { x: 0, y: 0, width: 1400, height: 900 } });

  // The ages move by themselves: the same events, read 2.5 s apart, show other ages
  // (a sample in which an event came or repeated proves nothing and is taken again).
  const sample = () => page.evaluate(() => {
    const items = [...document.querySelectorAll('#related-events li.event')];
    return {
      events: items.map((li) => `${li.dataset.reason} ${li.querySelector('.ev-message').textContent}`).join('|'),
      ages: items.map((li) => li.querySelector('.ev-age').textContent).join('|'),
    };
  });
  let agesSeen = '';
  const moved = await until('the ages to move', async () => {
    const a = await sample();
    await sleep(2500);
    const b = await sample();
    agesSeen = `${a.ages} -> ${b.ages}`;
    return a.events === b.events && a.ages !== b.ages;
  }, 20000, 0).catch(() => false);
  check(moved, `the ages move (${agesSeen})`);

  // Closing the panel stops the events watch.
  const failedBefore = aborted.length;
  const sentBefore = requests.length;
  await page.click('#close-detail');
  await until('the panel to close', () => page.evaluate(() => !document.getElementById('detail')), 5000);
  await sleep(1500);
  const stopped = aborted.slice(failedBefore).filter((u) => u.includes('/events?'));
  check(stopped.length >= 1, `closing the panel aborts the events watch (${stopped.length} aborted)`);
  const later = requests.slice(sentBefore).filter((u) => u.includes('/events?'));
  check(later.length === 0, `and no events request follows (${later.length})`);
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
} finally {
  await browser.close();
}
done('events');
