// Discovery as a user meets it: time from the wasm's arrival to the full resource
// picker (a resource of the last group listed) and to the first synced table, and
// the discovery requests made, with Chromium's network emulation adding LATENCY ms
// to every request. Each URL is an app served by kubectl proxy in front of the sim
// (e.g. two builds, before and after). Median of RUNS.
//   BUILDS="before=http://127.0.0.1:8002,after=http://127.0.0.1:8001" LAST=kubelive.dev/v1/widgets node bench/discovery.mjs
import { launch } from '../tests/lib.mjs';

const builds = (process.env.BUILDS || 'app=http://127.0.0.1:8001').split(',').map((b) => b.split('='));
const last = process.env.LAST || 'kubelive.dev/v1/widgets';
const latency = Number(process.env.LATENCY || 40);
const runs = Number(process.env.RUNS || 7);
const browser = await launch();
try {
  for (const [label, base] of builds) {
    const got = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency, downloadThroughput: -1, uploadThroughput: -1 });
      let requests = 0;
      page.on('request', (r) => {
        const p = new URL(r.url()).pathname;
        if (/^\/apis?(\/[^/]+){0,2}$/.test(p) && !/\/(pods|namespaces)$/.test(p)) requests += 1;
      });
      await page.goto(`${base}/ui/#r=v1/pods`);
      await page.waitForFunction((id) => document.querySelector(`#resource option[value="${id}"]`), last, { timeout: 30000, polling: 5 });
      const picker = await page.evaluate(() => performance.now());
      await page.waitForFunction(() => document.getElementById('status')?.dataset.synced === 'true', null, { timeout: 30000, polling: 5 });
      const synced = await page.evaluate(() => performance.now());
      const wasm = await page.evaluate(() => performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'))?.responseEnd ?? 0);
      got.push({ picker: picker - wasm, synced: synced - wasm, requests });
      await context.close();
    }
    const median = (k) => got.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(runs / 2)];
    console.log(`${label}: full picker ${median('picker').toFixed(0)} ms, synced table ${median('synced').toFixed(0)} ms, ${median('requests')} discovery requests (latency ${latency} ms, median of ${runs})`);
  }
} finally {
  await browser.close();
}
