// What a Watcher's snapshot() costs in Chromium, through kubectl proxy: the npm
// package's (cached: unchanged, and the first call after a batch of changes) against
// an older build's Watcher (every call parses every object), when OLD_URL serves one.
//
//   NEW_URL=http://127.0.0.1:8001/ui/npm/index.js   the package's index.js
//   OLD_URL=http://127.0.0.1:8002/old/kubelive_web.js  (optional) an older dist's module
//   PATH_=/api/v1/pods  SAMPLES=40
// Prints medians and p90s in ms. Run against a sim: `kubelive-sim serve --objects N --churn 2`.
import { launch } from '../tests/lib.mjs';

const NEW_URL = process.env.NEW_URL;
const OLD_URL = process.env.OLD_URL;
const PATH = process.env.PATH_ || '/api/v1/pods';
const SAMPLES = Number(process.env.SAMPLES || 40);

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `median ${q(0.5).toFixed(3)} ms, p90 ${q(0.9).toFixed(3)} ms (n=${s.length})`;
}

async function page(browser, url) {
  const p = await browser.newPage();
  await p.route(`${new URL(url).origin}/bench-watcher.html`, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>bench</title>' }));
  await p.goto(`${new URL(url).origin}/bench-watcher.html`);
  return p;
}

const browser = await launch();
try {
  const p = await page(browser, NEW_URL);
  const got = await p.evaluate(async ({ url, path, samples }) => {
    const { default: init, Watcher } = await import(url);
    await init();
    const w = new Watcher({ path });
    w.start();
    await new Promise((r) => w.onSynced(r));
    const cached = [];
    for (let i = 0; i < samples; i++) {
      const t = performance.now();
      w.snapshot();
      cached.push(performance.now() - t);
    }
    const rebuilt = [];
    await new Promise((resolve) => {
      const off = w.onUpdate(() => {
        const t = performance.now();
        w.snapshot();
        rebuilt.push(performance.now() - t);
        if (rebuilt.length >= samples) { off(); resolve(); }
      });
    });
    const n = w.size;
    w.free();
    return { n, cached, rebuilt };
  }, { url: NEW_URL, path: PATH, samples: SAMPLES });
  console.log(`package, ${got.n} objects: snapshot() unchanged ${stats(got.cached)}`);
  console.log(`package, ${got.n} objects: snapshot() after a change ${stats(got.rebuilt)}`);
  if (OLD_URL) {
    const o = await page(browser, OLD_URL);
    const old = await o.evaluate(async ({ url, path, samples }) => {
      const { default: init, Watcher } = await import(url);
      await init();
      const w = new Watcher({ path });
      window.keep = w; // the old Watcher dies with its last reference
      let synced = false;
      w.onStatus((s) => { synced = synced || s.synced; });
      w.start();
      while (!synced) await new Promise((r) => setTimeout(r, 50));
      const times = [];
      for (let i = 0; i < samples; i++) {
        const t = performance.now();
        w.snapshot();
        times.push(performance.now() - t);
      }
      return { n: w.size, times };
    }, { url: OLD_URL, path: PATH, samples: SAMPLES });
    console.log(`older Watcher, ${old.n} objects: snapshot() ${stats(old.times)}`);
  }
} finally {
  await browser.close();
}
