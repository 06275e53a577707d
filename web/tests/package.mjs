// A page served from a fresh directory where the packed tarball (`npm pack` of
// dist/npm) was installed with npm — not from dist/ — loads the package from
// node_modules under the CSP its README gives, and syncs pods of ns-0 through kubectl
// proxy (a second proxy in front of the same sim, serving that directory).
import { ARTIFACTS, check, done, openPage, until, launch } from './lib.mjs';
import { converges } from './watcherlib.mjs';

const PKG = process.env.PKG_URL;
if (!PKG) throw new Error('PKG_URL (the page of the installed package) is not set');
const origin = new URL(PKG).origin;

const browser = await launch();
try {
  const { page, problems } = await openPage(browser);
  const loaded = [];
  page.on('response', (r) => loaded.push({ url: r.url(), status: r.status(), type: r.headers()['content-type'] ?? '' }));
  // The browser's own favicon request would reach the API through the proxy (a 403 for
  // this user): not the package's doing.
  await page.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }));
  await page.goto(PKG);
  await until('the page to sync', () => page.evaluate(() => document.getElementById('status').dataset.synced === 'true'), 60000);
  check(true, 'a page importing the installed package syncs through kubectl proxy');
  const wasm = loaded.find((r) => r.url.endsWith('.wasm'));
  check(wasm && wasm.url === `${PKG}node_modules/kubelive/kubelive_watcher_bg.wasm` && wasm.status === 200,
    `the wasm came from the installed package (${wasm?.url})`);
  check(wasm && wasm.type === 'application/wasm', `served as application/wasm (${wasm?.type})`);
  check(!loaded.some((r) => r.url.includes('/ui/') || r.url.includes('kubelive_web')), 'nothing came from dist/ or the app');
  const exported = await page.evaluate(() => Object.keys(window.kubelive).sort().join(','));
  check(exported === 'View,Watcher,default,forgetSavedViews,humanDuration,init', `the package exports Watcher, View, forgetSavedViews, humanDuration, init and default only (${exported})`);
  await converges(page, origin, '/api/v1/namespaces/ns-0/pods', () => {
    const w = window.pageWatcher;
    const s = w.status();
    if (!s.synced || s.phase !== 'watching') return null;
    return { rv: s.resourceVersion, objects: w.snapshot().map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}@${o.metadata.resourceVersion}`) };
  }, "the installed package's watcher equals the server's Exact list at its version");
  await page.screenshot({ path: `${ARTIFACTS}/package.png` });
  check(problems.errors.length === 0 && problems.console.length === 0,
    `no page errors, console errors or CSP violations (${[...problems.errors, ...problems.console].join('; ')})`);
} finally {
  await browser.close();
}
done('package');
