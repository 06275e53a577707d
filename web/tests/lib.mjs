// Shared helpers of the browser tests: the system Chromium (never a downloaded one),
// page error collection, polling, and a small assertion helper.
import { chromium } from 'playwright-core';

export const ARTIFACTS = process.env.ARTIFACTS || new URL('../../artifacts', import.meta.url).pathname;

/**
 * Headless Chromium. `backForwardCache`: as a user's Chromium has it (Playwright turns
 * it off by default).
 */
export async function launch({ backForwardCache = false } = {}) {
  const args = [
    '--headless=new', '--disable-gpu', '--disable-dev-shm-usage',
    '--disable-background-networking', '--disable-component-update', '--no-first-run',
  ];
  if (process.getuid && process.getuid() === 0) args.unshift('--no-sandbox');
  const ignoreDefaultArgs = backForwardCache ? ['--disable-back-forward-cache'] : [];
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args, ignoreDefaultArgs });
}

/** Opens a page that records console errors, page errors, dialogs and CSP violations. */
export async function openPage(browser, opts = {}) {
  const context = await browser.newContext({ viewport: opts.viewport || { width: 1400, height: 900 } });
  const page = await context.newPage();
  const problems = { errors: [], dialogs: [], console: [] };
  page.on('pageerror', (e) => problems.errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.console.push(m.text());
  });
  page.on('dialog', async (d) => {
    problems.dialogs.push(d.message());
    await d.dismiss();
  });
  return { context, page, problems };
}

export async function until(what, fn, timeoutMs = 30000, everyMs = 100) {
  const started = Date.now();
  let last;
  while (Date.now() - started < timeoutMs) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last})`);
}

let failures = 0;
export function check(cond, what) {
  if (cond) {
    console.log(`  ok   ${what}`);
  } else {
    failures += 1;
    console.log(`  FAIL ${what}`);
  }
}

export function done(name) {
  if (failures) {
    console.log(`${name}: ${failures} check(s) failed`);
    process.exit(1);
  }
  console.log(`${name}: all checks passed`);
}

/** GET a JSON document (node side, straight to the proxy). */
export async function getJson(url) {
  // The suites' sims inject 5xx, 429 and HTML error pages into any request, the tests'
  // own reads included: those are asked again (a few times), any other status throws.
  for (let attempt = 1; ; attempt++) {
    const r = await fetch(url);
    if (r.ok) return r.json();
    const body = (await r.text()).slice(0, 200);
    if ((r.status < 500 && r.status !== 429) || attempt === 5) throw new Error(`GET ${url}: ${r.status} ${body}`);
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

/**
 * Checks that the table converges to the server's truth: the rows shown and the
 * version in the status bar (rendered in the same frame) against the server's Exact
 * list at that version. `path` may carry a query (a selector).
 */
export async function convergeTo(page, base, path, what, tries = 120) {
  let last = '';
  for (let i = 0; i < tries; i++) {
    const mine = await page.evaluate(() => {
      const st = document.getElementById('status');
      if (!st) return { waiting: 'no status bar yet' };
      if (st.dataset.phase !== 'watching' || st.dataset.synced !== 'true') return { waiting: st.innerText.replace(/\s+/g, ' ') };
      return {
        rv: st.dataset.rv,
        keys: [...document.querySelectorAll('.row:not(.gone)')].map((r) => r.dataset.key),
        total: Number(document.getElementById('total-count').textContent),
      };
    });
    if (mine.waiting) last = `not synced and watching: ${mine.waiting}`;
    if (mine.rv) {
      try {
        const sep = path.includes('?') ? '&' : '?';
        const list = await getJson(`${base}${path}${sep}resourceVersion=${mine.rv}&resourceVersionMatch=Exact`);
        const truth = list.items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();
        const got = [...mine.keys].sort();
        // The table is virtualized: a test must give it a viewport that shows every row.
        const cut = mine.total > got.length ? ' (more rows than the viewport shows)' : '';
        last = `rv ${mine.rv}: ${got.length} rows, ${mine.total} held, ${truth.length} on the server${cut}`;
        if (mine.total === truth.length && got.length === truth.length && got.every((k, j) => k === truth[j])) {
          check(true, `${what} converges to the server's truth (${last})`);
          return true;
        }
      } catch (e) {
        last = String(e);
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  check(false, `${what} converges to the server's truth (${last})`);
  return false;
}

/** The server's list at `path`: its version and the sorted `namespace/name` keys. */
export async function serverKeys(base, path) {
  const list = await getJson(`${base}${path}`);
  return {
    rv: Number(list.metadata.resourceVersion),
    keys: list.items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort(),
    maxItemRv: Math.max(0, ...list.items.map((o) => Number(o.metadata.resourceVersion))),
    digest: list.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort().join(','),
  };
}

/** The status bar's facts. */
export function appStatus(page) {
  return page.evaluate(() => {
    const st = document.getElementById('status');
    return st && {
      phase: st.dataset.phase,
      synced: st.dataset.synced === 'true',
      rv: Number(st.dataset.rv || 0),
      resumes: Number(st.dataset.resumes),
      relists: Number(st.dataset.relists),
      total: Number(document.getElementById('total-count')?.textContent),
      text: st.innerText.replace(/\s+/g, ' '),
    };
  });
}

/**
 * Where the column titled `title` is (case ignored, the sort arrow too) among a row's
 * cells: found by its header, so that a test survives columns added, removed or moved.
 */
export function columnIndex(page, title) {
  return page.evaluate((want) => {
    const heads = [...document.querySelectorAll('.thead .th')]
      .map((h) => h.textContent.replace(/[▲▼]/g, '').trim().toLowerCase());
    const at = heads.indexOf(want.toLowerCase());
    if (at < 0) throw new Error(`no column "${want}" (columns: ${heads.join(', ')})`);
    return at;
  }, title);
}

/** The cells of the column titled `title` in the shown rows that are not gone, top to bottom. */
export async function columnCells(page, title) {
  const at = await columnIndex(page, title);
  // The row elements are a pool kept in their own order: the table's is `aria-rowindex`.
  return page.evaluate((at) => [...document.querySelectorAll('.row:not(.gone)')]
    .sort((a, b) => a.ariaRowIndex - b.ariaRowIndex).map((r) => r.children[at].textContent), at);
}

/**
 * Every row key of the (virtualized) table, scrolling it from top to bottom; for a
 * table that holds still (its rows are read a viewport at a time).
 */
export async function allRowKeys(page) {
  const keys = new Set();
  const { height, view } = await page.evaluate(() => {
    const s = document.getElementById('scroller');
    s.scrollTop = 0;
    return { height: s.scrollHeight, view: s.clientHeight };
  });
  for (let top = 0; top < height + view; top += Math.max(100, view - 56)) {
    const got = await page.evaluate(async (y) => {
      const s = document.getElementById('scroller');
      s.scrollTop = y;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return [...document.querySelectorAll('.row:not(.gone)')].map((r) => r.dataset.key);
    }, top);
    got.forEach((k) => keys.add(k));
  }
  await page.evaluate(() => { document.getElementById('scroller').scrollTop = 0; });
  return [...keys].sort();
}

/**
 * A TCP relay in front of `target` (host:port) that can make the connections carrying
 * a request go silent as a half-open connection does (a NAT or load balancer that
 * dropped its state, a laptop lid, a VPN): from then on no byte passes either way and
 * neither end is told; new connections pass as before. Chromium opens a new connection
 * once it gives up on the old one.
 */
export async function startRelay(target) {
  const net = await import('node:net');
  const [host, port] = target.replace(/^https?:\/\//, '').split(':');
  const conns = new Set();
  const server = net.createServer((client) => {
    const up = net.connect(Number(port), host);
    const c = { client, up, request: '', silent: false };
    conns.add(c);
    client.on('data', (d) => {
      if (c.silent) return;
      const line = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (\S+)/.exec(d.toString('latin1'));
      if (line) c.request = `${line[1]} ${line[2]}`;
      up.write(d);
    });
    up.on('data', (d) => { if (!c.silent) client.write(d); });
    const close = () => { conns.delete(c); client.destroy(); up.destroy(); };
    client.on('close', close);
    up.on('close', () => { if (!c.silent) close(); });
    client.on('error', close);
    up.on('error', () => { if (!c.silent) close(); });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    /** Silences the open connections whose last request matches; their requests. */
    silence(match) {
      const hit = [...conns].filter((c) => !c.silent && match(c.request));
      hit.forEach((c) => { c.silent = true; });
      return hit.map((c) => c.request);
    },
    close() {
      for (const c of conns) { c.client.destroy(); c.up.destroy(); }
      server.close();
    },
  };
}

/**
 * The sim's LIST and WATCH requests by resource on its /metrics, as
 * `{ 'LIST pods': n, 'WATCH replicasets': m, ... }` (every status code counted).
 */
export async function apiRequests(base) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = {};
  for (const line of text.split('\n')) {
    const x = /^apiserver_request_total\{verb="(LIST|WATCH)",resource="([a-z]+)",code="\d+"\} (\d+)$/.exec(line);
    if (!x) continue;
    const key = `${x[1]} ${x[2]}`;
    m[key] = (m[key] || 0) + Number(x[3]);
  }
  return m;
}

/** What moved between two counts of `apiRequests` (the counts that did not, left out). */
export const requestsDelta = (a, b) => Object.fromEntries(Object.keys({ ...a, ...b })
  .map((k) => [k, (b[k] || 0) - (a[k] || 0)]).filter(([, v]) => v !== 0));

/**
 * The sim's pods counters on its /metrics: lists from nothing (`initialLists`), LIST
 * and WATCH requests, and the watches open now.
 */
export async function simPodMetrics(base) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = { initialLists: 0, lists: 0, watches: 0, openWatches: 0 };
  for (const line of text.split('\n')) {
    let x = /^kubelive_sim_initial_lists_total\{resource="pods",how="[a-z]+"\} (\d+)$/.exec(line);
    if (x) m.initialLists += Number(x[1]);
    x = /^apiserver_request_total\{verb="(LIST|WATCH)",resource="pods",code="\d+"\} (\d+)$/.exec(line);
    if (x && x[1] === 'LIST') m.lists += Number(x[2]);
    if (x && x[1] === 'WATCH') m.watches += Number(x[2]);
    x = /^apiserver_longrunning_requests\{verb="WATCH",resource="pods"\} (\d+)$/.exec(line);
    if (x) m.openWatches = Number(x[1]);
  }
  return m;
}

/**
 * Opens the detail panel of the newest Pending pod the table shows (double click);
 * the pod as the server listed it, or null when none could be opened.
 */
export async function openNewPendingPod(page, base) {
  const pods = (await getJson(`${base}/api/v1/pods`)).items
    .filter((p) => p.status.phase === 'Pending' && !p.metadata.deletionTimestamp)
    .sort((a, b) => Number(b.metadata.resourceVersion) - Number(a.metadata.resourceVersion));
  for (const p of pods) {
    const row = `.row:not(.gone)[data-key="${p.metadata.namespace}/${p.metadata.name}"]`;
    if (!(await page.evaluate((sel) => !!document.querySelector(sel), row))) continue;
    const opened = await page.dblclick(row, { timeout: 2000 })
      .then(() => until('the panel', () => page.evaluate((n) => document.getElementById('detail-name')?.textContent === n, p.metadata.name), 3000))
      .catch(() => false);
    return opened && p;
  }
  return null;
}
