// Issue 26: the app's streaming sync (`&stream=1`) through kubectl proxy against the
// sim as a given kube-apiserver release (the suite runs it against 1.27, 1.31 and 1.37;
// the script reads which from /version).
//
// 1.27 and 1.31 refuse a streaming list (the WatchList gate is off: 422); 1.37 serves it
// gzipped as one gzip member per flush (WatchListCompression), and Chromium keeps only
// the first member of a gzip body: the view would stall where that member ends, or reach
// Synced and then receive nothing. On each release the view must sync with LIST+WATCH
// instead, give the streaming request up at once (1.37: at its head, which says
// `Content-Encoding: gzip`), say so once in the status bar, and stay live: a pod the
// churn creates 5 s after Synced is in the table within 2 s. Then the same for the JS
// Watcher (the npm package) with `streamingList: true`.
import { launch, openPage, until, check, done, appStatus, getJson, ARTIFACTS } from './lib.mjs';
import { packagePage } from './watcherlib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const browser = await launch();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The sum of `apiserver_request_total` over codes for `verb` on pods (and per code). */
async function podRequests(verb) {
  const text = await (await fetch(`${BASE}/metrics`)).text();
  const byCode = {};
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^apiserver_request_total\{verb="([A-Z]+)",resource="pods",code="(\d+)"\} (\d+)$/.exec(line);
    if (m && m[1] === verb) {
      byCode[m[2]] = Number(m[3]);
      total += Number(m[3]);
    }
  }
  return { total, byCode };
}

/** The pods on the server now, as `namespace/name` keys (node side, through the proxy). */
async function serverPods() {
  const list = await getJson(`${BASE}/api/v1/pods`);
  return new Set(list.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
}

const rowKeys = (page) => page.evaluate(() => [...document.querySelectorAll('.row:not(.gone)')].map((r) => r.dataset.key));

/**
 * Waits for the churn's next new pod on the server and then for `shows(key)`: within
 * 2 s of its creation, which lies after the start of the last poll that lacked it.
 * Returns `{ key, after }` (`after`: ms from that poll's start, null if not within 2 s),
 * or null if no new pod came. A pod the churn deletes at once makes way for the next.
 */
async function nextNewPod(shows) {
  let knownAt = Date.now();
  let known = await serverPods();
  for (let attempt = 0; attempt < 3; attempt++) {
    let fresh = null;
    let before = knownAt;
    const limit = Date.now() + 20000;
    while (!fresh && Date.now() < limit) {
      await sleep(50);
      const polled = Date.now();
      const now = await serverPods();
      fresh = [...now].find((k) => !known.has(k));
      before = knownAt;
      known = now;
      knownAt = polled;
    }
    if (!fresh) return null;
    while (Date.now() < before + 2000) {
      if (await shows(fresh)) return { key: fresh, after: Date.now() - before };
      await sleep(25);
    }
    if ((await serverPods()).has(fresh)) return { key: fresh, after: null };
  }
  return null;
}


const version = await getJson(`${BASE}/version`);
const minor = Number(version.minor);
const gzipped = minor >= 37;
const label = `1.${minor}`;
console.log(`releases.mjs against kube-apiserver ${version.gitVersion}`);

try {
  const listsBefore = await podRequests('LIST');
  const { page, problems } = await openPage(browser);
  // The streaming requests for pods: when their head came, what it said, when they ended.
  const streams = [];
  const isStream = (req) => {
    const url = new URL(req.url());
    return url.pathname === '/api/v1/pods' && url.searchParams.get('sendInitialEvents') === 'true';
  };
  page.on('request', (req) => {
    if (isStream(req)) streams.push({ req, sent: Date.now() });
  });
  page.on('response', async (res) => {
    const s = streams.find((x) => x.req === res.request());
    if (!s) return;
    s.head = Date.now();
    s.status = res.status();
    s.encoding = (await res.allHeaders())['content-encoding'] || '';
  });
  const ended = (req, how) => {
    const s = streams.find((x) => x.req === req);
    if (s && !s.ended) Object.assign(s, { ended: Date.now(), how });
  };
  page.on('requestfailed', (req) => ended(req, req.failure()?.errorText || 'failed'));
  page.on('requestfinished', (req) => ended(req, 'finished'));
  // The browser's own count of its LISTs of pods (the metrics count every client's).
  let browserLists = 0;
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.pathname === '/api/v1/pods' && url.searchParams.get('watch') !== 'true') browserLists += 1;
  });

  const opened = Date.now();
  // Youngest first: a new pod comes at the top, among the rows drawn.
  await page.goto(`${BASE}/ui/#r=v1/pods&stream=1&sort=age`);
  const synced = await until('the first sync', async () => {
    const s = await appStatus(page);
    return s?.phase === 'watching' && s.synced && s;
  }, 30000, 50).catch((e) => {
    check(false, `${label}: the view syncs (${e.message})`);
    return null;
  });
  if (synced) {
    const syncedAt = Date.now();
    check(true, `${label}: the view syncs, in ${syncedAt - opened} ms (${synced.total} pods)`);

    // The streaming request is given up as soon as its head says what it is: refused
    // (422) or gzipped. Never a stream left open to stall or to go quiet.
    const first = streams[0];
    check(first && first.head, `${label}: the app asked for a streaming list and got its head`);
    if (first?.head) {
      await until('the streaming request to end', () => first.ended, 2000, 20).catch(() => {});
      const what = `status ${first.status}${first.encoding ? `, Content-Encoding: ${first.encoding}` : ''}`;
      if (gzipped) {
        check(first.status === 200 && first.encoding === 'gzip', `${label}: the streaming list is served gzipped (${what})`);
      } else {
        check(first.status === 422, `${label}: the streaming list is refused (${what})`);
      }
      check(first.ended && first.ended - first.head < 1000,
        `${label}: the app gives the streaming request up at its head (${what}; ended ${first.ended ? `${first.ended - first.head} ms after its head (${first.how})` : 'never'})`);
      check(streams.length === 1, `${label}: one streaming request in the session (${streams.length})`);
    }

    // LISTs made to sync: the fallback's (the page's own count, and the sim's, read
    // before this script's own LISTs below).
    const listsAfter = await podRequests('LIST');
    const lists = listsAfter.total - listsBefore.total;
    check(browserLists >= 1 && lists === browserLists,
      `${label}: the app synced with LIST (${browserLists} LIST(s) from the page, ${lists} in the sim's /metrics)`);

    // 5 s after Synced, the churn's next new pod is in the table within 2 s.
    await sleep(Math.max(0, syncedAt + 5000 - Date.now()));
    const found = await nextNewPod(async (key) => (await rowKeys(page)).includes(key));
    check(found?.after != null,
      `${label}: a pod created 5 s after Synced is in the table within 2 s (${found ? `${found.key}: ${found.after == null ? 'not within 2 s' : `at most ${found.after} ms`}` : 'no new pod on the server'})`);

    // The status bar says once why the sync did not stream.
    const facts = await page.evaluate(() => [...document.querySelectorAll('#status .fact')].map((f) => f.textContent));
    const off = facts.filter((f) => /streaming list off/i.test(f));
    const said = off[0] || '';
    check(off.length === 1 && (gzipped ? /gzip/i.test(said) : !/gzip/i.test(said)),
      `${label}: the status says once that the streaming list was ${gzipped ? 'given up (gzip)' : 'refused'}: ${JSON.stringify(facts)}`);
    const why = said.replace(/^streaming list off: /i, '');
    check(why && facts.filter((f) => f.includes(why)).length === 1 && !facts.some((f) => /^errors/.test(f)),
      `${label}: its reason stands in one place only, and it is no error: ${JSON.stringify(facts)}`);

    await page.screenshot({ path: `${ARTIFACTS}/releases-${label}.png`, clip: { x: 0, y: 0, width: 1400, height: 900 } });
  }
  check(problems.errors.length === 0, `${label}: no page errors (${problems.errors.slice(0, 2).join(' | ')})`);
  await watcher();
} finally {
  await browser.close();
}
done(`releases.mjs (${label})`);

/** The JS Watcher with `streamingList: true`: it syncs with LIST + WATCH, says why, stays live. */
async function watcher() {
  const { context, page, problems } = await packagePage(browser, BASE);
  const lists0 = await podRequests('LIST');
  await page.evaluate(() => {
    window.w = new window.kl.Watcher({ path: '/api/v1/pods', streamingList: true });
    window.w.start();
  });
  const synced = await until('the Watcher to sync', () => page.evaluate(() => {
    const s = window.w.status();
    return s.synced && s.phase === 'watching' && s;
  }), 30000, 50).catch((e) => {
    check(false, `${label}: the Watcher (streamingList) syncs (${e.message})`);
    return null;
  });
  if (synced) {
    const syncedAt = Date.now();
    const lists = (await podRequests('LIST')).total - lists0.total;
    check(lists >= 1 && (gzipped ? /gzip/i.test(synced.fellBack) : /WatchList/.test(synced.fellBack)),
      `${label}: the Watcher (streamingList) syncs with LIST (${lists} in the sim's /metrics), fellBack: ${synced.fellBack}`);
    await sleep(Math.max(0, syncedAt + 5000 - Date.now()));
    const found = await nextNewPod((key) => page.evaluate((k) => window.w.snapshot()
      .some((o) => `${o.metadata.namespace}/${o.metadata.name}` === k), key));
    check(found?.after != null,
      `${label}: a pod created 5 s after the Watcher synced is in its snapshot within 2 s (${found ? `${found.key}: ${found.after == null ? 'not within 2 s' : `at most ${found.after} ms`}` : 'no new pod on the server'})`);
  }
  check(problems.errors.length === 0, `${label}: no page errors with the Watcher (${problems.errors.slice(0, 2).join(' | ')})`);
  await context.close();
}
