// The pages the cross-browser tests open, written into `dist/xb/` (kubectl proxy serves
// dist/ under /ui/, so they share the API's origin as the app does). WebDriver classic
// cannot intercept requests nor hear page errors, so each page loads `trap.js` first,
// which records errors, unhandled rejections, console errors and CSP violations.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';

export const DIST = process.env.DIST || new URL('../../../dist', import.meta.url).pathname;
const DIR = `${DIST}/xb`;

const TRAP = `// Records what a page's user would see go wrong (read by the tests as window.__xb).
{
window.__xb = { errors: [], resizeLoops: 0 };
const note = (what) => window.__xb.errors.push(what);
addEventListener('error', (e) => {
  // Not a script's error: the browser's word that a ResizeObserver callback changed
  // what it observes within one frame (the rest of its news waits for the next frame).
  if (/ResizeObserver loop/.test(e.message)) window.__xb.resizeLoops += 1;
  else note('error: ' + (e.message || e.type) + (e.filename ? ' at ' + e.filename + ':' + e.lineno : ''));
});
addEventListener('unhandledrejection', (e) => note('unhandled rejection: ' + String(e.reason)));
document.addEventListener('securitypolicyviolation', (e) => note('CSP: ' + e.violatedDirective + ' ' + e.blockedURI));
const consoleError = console.error;
console.error = (...args) => { note('console.error: ' + args.map(String).join(' ')); consoleError.apply(console, args); };
}
`;

// When the table first holds rows and when the status bar first says Synced, on the
// page's clock (ms from the navigation's start): loaded before the app, as its first
// script, for the cross-engine figures (bench.mjs).
const MARKS = `{
window.__xbMarks = { rows: null, synced: null };
const marks = window.__xbMarks;
const seen = new MutationObserver(() => {
  const now = performance.now();
  if (marks.rows === null && document.querySelector('#scroller .row')) marks.rows = now;
  if (marks.synced === null && document.querySelector('#status[data-synced="true"]')) marks.synced = now;
  if (marks.rows !== null && marks.synced !== null) seen.disconnect();
});
seen.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-synced'] });
}
`;

const BLANK = `<!doctype html><meta charset="utf-8"><title>kubelive cross-browser tests</title>
<script src="trap.js"></script><p>kubelive cross-browser tests</p>`;

// The element as a dashboard embeds it, under the CSP the package's README gives.
const COMPONENT = `<!doctype html><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; connect-src 'self'">
<title>kubelive-table, cross-browser</title>
<script src="trap.js"></script>
<kubelive-table id="pods" resource="pods" namespace="ns-0"></kubelive-table>
<script type="module" src="../npm/component.js"></script>`;

// A shared table (its view kept in IndexedDB, persist being the default of a shared
// Watcher) on a page that records each status the table fires. Its unload listener keeps
// the page out of the back/forward cache, so leaving it ends its worker.
const KEPT = COMPONENT
  .replace('<script src="trap.js"></script>', '<script src="trap.js"></script>\n<script src="kept.js"></script>')
  .replace('id="pods" resource="pods" namespace="ns-0"', 'id="kept" resource="pods" namespace="ns-1" shared');

const KEPT_JS = `window.__statuses = [];
addEventListener('kubelive-status', (e) => window.__statuses.push({ phase: e.detail.phase, restored: Boolean(e.detail.restored), synced: e.detail.synced }));
addEventListener('unload', () => {});
`;

/**
 * Writes the pages: `blank.html`, `component.html`, `kept.html` (and its `kept.js`),
 * and `app.html`, the app's own index.html (same CSP, same files) with the trap and the
 * marks loaded first.
 */
export async function writePages() {
  await mkdir(DIR, { recursive: true });
  const index = await readFile(`${DIST}/index.html`, 'utf8');
  const app = index
    .replaceAll('href="./', 'href="../')
    .replaceAll('src="./', 'src="../')
    .replace('<title>', '<script src="trap.js"></script>\n  <script src="marks.js"></script>\n  <title>');
  if (!app.includes('src="../app.js"')) throw new Error('dist/index.html no longer loads ./app.js: update pages.mjs');
  await Promise.all([
    writeFile(`${DIR}/trap.js`, TRAP),
    writeFile(`${DIR}/marks.js`, MARKS),
    writeFile(`${DIR}/blank.html`, BLANK),
    writeFile(`${DIR}/component.html`, COMPONENT),
    writeFile(`${DIR}/kept.html`, KEPT),
    writeFile(`${DIR}/kept.js`, KEPT_JS),
    writeFile(`${DIR}/app.html`, app),
  ]);
}

export async function removePages() {
  await rm(DIR, { recursive: true, force: true });
}

/** What the page's trap recorded. */
export function pageErrors(browser) {
  return browser.evaluate(() => (window.__xb ? window.__xb.errors : ['the trap did not load']));
}

/** How many "ResizeObserver loop completed with undelivered notifications" the page had. */
export function resizeLoops(browser) {
  return browser.evaluate(() => window.__xb?.resizeLoops ?? 0);
}
