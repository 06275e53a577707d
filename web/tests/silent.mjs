// Issue 11 in the browser: a watch that goes silent. Between the browser and kubectl
// proxy a relay makes the pods watch's connection half-open (no byte passes either
// way, neither end is told), as a NAT or load balancer that dropped its state does.
// The app cannot tell silence from calm, but the status bar shows how long ago the
// last byte came; the engine gives up on the watch by its deadline (150 s without a
// byte on a server that sends bookmarks) and resumes on a new connection, and the
// table catches up with the changes it missed (the churn stopped meanwhile).
import { launch, openPage, until, check, done, serverKeys, appStatus, allRowKeys, startRelay, ARTIFACTS } from './lib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
// The engine's idle deadline (kubelive-core `Deadlines::idle`).
const IDLE_S = 150;
const browser = await launch();
const relay = await startRelay(BASE);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const lastByte = (text) => Number((/last byte (\d+) s ago/.exec(text) || [])[1] ?? -1);

try {
  const { page, problems } = await openPage(browser, { viewport: { width: 1400, height: 1600 } });
  await page.goto(`${relay.url}/ui/#r=v1/pods`);
  await until('the first sync', async () => (await appStatus(page))?.synced, 60000);
  // The idle deadline applies once the server has shown that it sends bookmarks.
  await until('a bookmark', async () => !(await appStatus(page)).text.includes('no bookmark yet'), 30000);
  const before = await appStatus(page);

  const silenced = relay.silence((r) => r.startsWith('GET /api/v1/pods?') && r.includes('watch=true'));
  const silentAt = Date.now();
  check(silenced.length === 1, `the pods watch's connection went silent (${silenced.join(', ')})`);

  // While silent: still "watching" (nothing says otherwise), the last byte ages, and
  // the table falls behind the server, which keeps changing.
  await sleep(20000);
  const quiet = await appStatus(page);
  check(quiet.phase === 'watching' && lastByte(quiet.text) >= 15,
    `after 20 s of silence the status bar says how long: ${quiet.text}`);
  await page.screenshot({ path: `${ARTIFACTS}/silent.png`, clip: { x: 0, y: 0, width: 1400, height: 300 } });
  const server = await serverKeys(BASE, '/api/v1/pods');
  const stale = await allRowKeys(page);
  check(stale.join() !== server.keys.join(), `the table fell behind (${stale.length} rows, ${server.keys.length} on the server)`);

  // The deadline: the engine gives up and resumes (a new watch, a new connection).
  let longest = 0;
  const resumed = await until('the resume after the deadline', async () => {
    const s = await appStatus(page);
    if (s.resumes === before.resumes) longest = Math.max(longest, lastByte(s.text));
    return s.resumes > before.resumes && s;
  }, (IDLE_S + 20) * 1000, 500).catch(() => null);
  const after = Math.round((Date.now() - silentAt) / 1000);
  check(resumed, `the engine resumed ${after} s after the silence began (deadline: ${IDLE_S} s after the last byte; ` +
    `the status bar counted up to "last byte ${longest} s ago"): ${resumed?.text}`);
  check(longest >= IDLE_S - 10, `the status bar showed the silence growing until the deadline (${longest} s)`);

  // Caught up: the churn has stopped; the table equals the server's truth.
  const truth = await serverKeys(BASE, '/api/v1/pods');
  const synced = await until('the table to catch up', async () => {
    const s = await appStatus(page);
    return s.synced && s.rv >= truth.maxItemRv && s.total === truth.keys.length && s;
  }, 15000).catch(() => null);
  check(synced, `the app holds the server's state after the resume (rv ${synced?.rv} >= ${truth.maxItemRv}): ${synced?.text}`);
  const keys = await allRowKeys(page);
  check(keys.join() === truth.keys.join(), `the table equals the server's truth (${keys.length} rows, ${truth.keys.length} on the server)`);
  check(synced && synced.relists === before.relists, `a resume, not a relist (relists ${synced?.relists})`);
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
} finally {
  await browser.close();
  relay.close();
}
done('silent');
