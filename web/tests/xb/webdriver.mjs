// A small W3C WebDriver (classic) client for the browsers Playwright cannot drive:
// Debian's Firefox ESR through geckodriver, and WebKitGTK's MiniBrowser through
// WebKitWebDriver under a private Xvfb display. No browser download: both are the
// system's packages (`cargo xtask setup` installs them).
//
// `Browser.start(name)` starts the driver (and the display) and a session; the session
// offers what the cross-browser tests need, with `evaluate(fn, arg)` shaped as
// Playwright's page.evaluate so that the Chromium scripts' helpers (lib.mjs) work on it.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';

/** The engines this client drives, and where their programs are. */
export const ENGINES = {
  firefox: {
    binary: process.env.FIREFOX || '/usr/bin/firefox-esr',
    driver: process.env.GECKODRIVER || 'geckodriver',
    driverArgs: (port) => ['--port', String(port), '--log', 'error'],
    capabilities: (binary) => ({
      browserName: 'firefox',
      'moz:firefoxOptions': {
        binary,
        args: ['-headless'],
        // No first-run pages, updates or telemetry: only the test's own requests.
        prefs: {
          'browser.shell.checkDefaultBrowser': false,
          'datareporting.policy.dataSubmissionEnabled': false,
          'app.update.enabled': false,
          'browser.startup.homepage_override.mstone': 'ignore',
        },
      },
    }),
    display: false,
  },
  // Chromium too (its own tests use Playwright): the same client and method for the
  // cross-engine figures, and a check of this harness on the engine known best.
  chromium: {
    binary: process.env.CHROMIUM || '/usr/bin/chromium',
    driver: process.env.CHROMEDRIVER || '/usr/bin/chromedriver',
    driverArgs: (port) => [`--port=${port}`],
    capabilities: (binary) => ({
      browserName: 'chrome',
      'goog:chromeOptions': {
        binary,
        args: [
          '--headless=new', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
          '--disable-component-update', '--no-first-run',
          ...(process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : []),
        ],
      },
    }),
    display: false,
  },
  webkit: {
    binary: process.env.MINIBROWSER || miniBrowser(),
    driver: process.env.WEBKITWEBDRIVER || 'WebKitWebDriver',
    driverArgs: (port) => [`--port=${port}`],
    // `--automation`: MiniBrowser's mode for a driver (no toolbar, a fresh ephemeral
    // profile); what WebKitWebDriver passes itself when it is given no browser.
    capabilities: (binary) => ({
      'webkitgtk:browserOptions': { binary, args: ['--automation'] },
    }),
    // WebKitGTK has no headless mode: it draws into a private Xvfb display.
    display: true,
  },
};

/** MiniBrowser of Debian's libwebkit2gtk-4.1-0 (the directory is the multiarch triplet's). */
function miniBrowser() {
  const triplet = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }[process.arch] || `${process.arch}-linux-gnu`;
  return `/usr/lib/${triplet}/webkit2gtk-4.1/MiniBrowser`;
}

/** Keys as WebDriver's "send keys" and actions name them (the normative code points). */
export const Key = {
  Enter: '\uE007',
  Escape: '\uE00C',
  Tab: '\uE004',
  ArrowLeft: '\uE012',
  ArrowUp: '\uE013',
  ArrowRight: '\uE014',
  ArrowDown: '\uE015',
  Home: '\uE011',
  End: '\uE010',
  PageDown: '\uE00F',
};

/** The web element reference's key in WebDriver's JSON. */
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort() {
  const server = net.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** An error WebDriver answered, with its code (`no such element`, `javascript error`...). */
export class WebDriverError extends Error {
  constructor(command, value) {
    super(`${command}: ${value.error}: ${value.message}`);
    this.code = value.error;
  }
}

/** A viewport narrower than the browser lets its window be. */
export class TooNarrow extends Error {
  constructor(browser, width, least) {
    super(`${browser}: the window cannot be narrow enough for a ${width} px viewport (${least} px at least)`);
    this.least = least;
  }
}

/** Starts Xvfb on a display it picks itself (`-displayfd`): `{ display, process }`. */
async function startXvfb(width, height) {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  xvfb.stderr.on('data', (d) => { stderr += d; });
  const display = await new Promise((resolve, reject) => {
    let out = '';
    xvfb.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(`:${out.trim()}`);
    });
    xvfb.on('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${stderr.trim()}`)));
    xvfb.on('error', (e) => reject(new Error(`cannot start Xvfb (apt-get install xvfb): ${e.message}`)));
  });
  return { display, process: xvfb };
}

/** A browser session through its WebDriver server. */
export class Browser {
  /**
   * Starts `name`'s driver (and display) and a session with a window of `width` x
   * `height` CSS pixels of page (the viewport, not the outer window).
   */
  static async start(name, { width = 1400, height = 900 } = {}) {
    const engine = ENGINES[name];
    if (!engine) throw new Error(`unknown browser ${name} (${Object.keys(ENGINES).join(', ')})`);
    if (!existsSync(engine.binary)) throw new Error(`${name}: no browser at ${engine.binary} (cargo xtask setup installs it)`);
    const b = new Browser(name);
    try {
      const env = { ...process.env };
      if (engine.display) {
        // Room for the widest window the tests ask for, and its frame.
        b.xvfb = await startXvfb(2700, 4200);
        env.DISPLAY = b.xvfb.display;
      }
      const port = await freePort();
      b.driver = spawn(engine.driver, engine.driverArgs(port), { env, stdio: ['ignore', 'pipe', 'pipe'] });
      b.driverLog = '';
      const log = (d) => { b.driverLog = (b.driverLog + d).slice(-4000); };
      b.driver.stdout.on('data', log);
      b.driver.stderr.on('data', log);
      const spawned = new Promise((_, reject) => b.driver.on('error', (e) => reject(new Error(`cannot start ${engine.driver}: ${e.message}`))));
      b.base = `http://127.0.0.1:${port}`;
      await Promise.race([spawned, b.waitReady()]);
      const created = await b.send('POST', '/session', { capabilities: { alwaysMatch: engine.capabilities(engine.binary) } }, false);
      b.session = created.sessionId;
      b.version = `${created.capabilities.browserName} ${created.capabilities.browserVersion}`;
      // Firefox outlives a killed geckodriver: its own pid, to end it then too.
      b.browserPid = created.capabilities['moz:processID'];
      await b.setTimeouts({ script: 120000, pageLoad: 60000 });
      await b.setViewport(width, height);
      return b;
    } catch (e) {
      await b.close();
      throw e;
    }
  }

  constructor(name) {
    this.name = name;
    live.add(this);
  }

  async waitReady() {
    for (let i = 0; i < 300; i++) {
      try {
        const r = await fetch(`${this.base}/status`);
        if (r.ok) return;
      } catch (_) { /* not listening yet */ }
      if (this.driver.exitCode !== null) throw new Error(`${this.name}'s driver exited: ${this.driverLog}`);
      await sleep(50);
    }
    throw new Error(`${this.name}'s driver did not answer in 15 s: ${this.driverLog}`);
  }

  /** One WebDriver command: its `value`, or a WebDriverError. */
  async send(method, path, body, inSession = true) {
    const url = `${this.base}${inSession ? `/session/${this.session}` : ''}${path}`;
    const r = await fetch(url, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json; charset=utf-8' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch (_) {
      throw new Error(`${method} ${path}: HTTP ${r.status}: ${text.slice(0, 300)}`);
    }
    // A driver's error is its non-2xx status (W3C WebDriver, "send an error"); a 2xx
    // value is the command's result, even an object of the page's with an `error` key.
    if (!r.ok) throw new WebDriverError(`${method} ${path}`, json.value || {});
    return json.value;
  }

  setTimeouts(t) {
    return this.send('POST', '/timeouts', t);
  }

  /** Navigates and waits for the load event. */
  goto(url) {
    return this.send('POST', '/url', { url });
  }

  url() {
    return this.send('GET', '/url');
  }

  /**
   * Runs `fn(arg)` in the page and returns its (awaited) result, as Playwright's
   * page.evaluate does: `fn` a function (serialised by its source) or an expression.
   */
  evaluate(fn, arg) {
    const script = typeof fn === 'function'
      ? `return (${fn.toString()})(arguments[0]);`
      : `return (${fn});`;
    // Classic WebDriver awaits a returned promise (the spec's "execute a function body").
    return this.send('POST', '/execute/sync', { script, args: [arg === undefined ? null : arg] });
  }

  /**
   * Sets the page's viewport to `width` x `height` CSS pixels, resizing the window
   * around it. A TooNarrow error when the browser keeps its window wider (Firefox's
   * is 500 px at least, MiniBrowser's 447).
   */
  async setViewport(width, height) {
    let rect = { width: width + 16, height: height + 100 };
    for (let i = 0; i < 4; i++) {
      await this.send('POST', '/window/rect', rect);
      // A window is resized by the window system in its own time (X's configure events).
      let inner;
      let outer;
      for (let j = 0; j < 20; j++) {
        await sleep(50);
        inner = await this.evaluate(() => ({ w: window.innerWidth, h: window.innerHeight }));
        outer = await this.send('GET', '/window/rect');
        if (outer.width === rect.width && outer.height === rect.height) break;
      }
      if (inner.w === width && inner.h === height) return;
      if (outer.width > rect.width) throw new TooNarrow(this.name, width, inner.w);
      rect = { width: rect.width + width - inner.w, height: rect.height + height - inner.h };
    }
    const got = await this.evaluate(() => `${window.innerWidth}x${window.innerHeight}`);
    throw new Error(`${this.name}: cannot make a ${width}x${height} viewport (got ${got})`);
  }

  /**
   * Runs the next commands in the page's first frame (`index`), or back in the top
   * page (`null`).
   */
  async frame(index) {
    await this.send('POST', '/frame', { id: index });
  }

  /** The first element matching `css` (a WebDriverError `no such element` if none). */
  async find(css) {
    const el = await this.send('POST', '/element', { using: 'css selector', value: css });
    return el[ELEMENT];
  }

  /** Clicks the element matching `css` as a user does (scrolled into view, hit-tested). */
  async click(css) {
    await this.send('POST', `/element/${await this.find(css)}/click`, {});
  }

  /** Types `text` into the element matching `css` (focusing it first). */
  async type(css, text) {
    await this.send('POST', `/element/${await this.find(css)}/value`, { text });
  }

  /** Presses `keys` (characters or `Key`s) on whatever has the focus. */
  async press(...keys) {
    const actions = keys.flatMap((k) => [{ type: 'keyDown', value: k }, { type: 'keyUp', value: k }]);
    await this.send('POST', '/actions', { actions: [{ type: 'key', id: 'keyboard', actions }] });
    await this.send('DELETE', '/actions');
  }

  /** A PNG of the viewport, written to `path`. */
  async screenshot(path) {
    const png = await this.send('GET', '/screenshot');
    await writeFile(path, Buffer.from(png, 'base64'));
  }

  /** Ends the session (the driver closes its browser), then the driver and the display. */
  async close() {
    if (this.session) {
      await this.send('DELETE', '').catch(() => {});
      this.session = null;
    }
    for (const p of [this.driver, this.xvfb?.process]) {
      if (p && p.exitCode === null && p.signalCode === null) {
        const gone = new Promise((r) => p.once('exit', r));
        p.kill('SIGTERM');
        await Promise.race([gone, sleep(3000)]);
        if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      }
    }
    this.killBrowser();
    live.delete(this);
  }

  /** Ends the browser's process if it is still there (Firefox: by its own pid). */
  killBrowser() {
    if (!this.browserPid) return;
    try {
      // Only if that pid is still the browser (a pid may be handed out again).
      if (readFileSync(`/proc/${this.browserPid}/cmdline`, 'utf8').includes('firefox')) process.kill(this.browserPid, 'SIGKILL');
    } catch (_) { /* gone already */ }
    this.browserPid = null;
  }

  /** At once, for a process that exits: the driver, the display and the browser. */
  killNow() {
    for (const p of [this.driver, this.xvfb?.process]) {
      if (p && p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    }
    this.killBrowser();
  }
}

/** The browsers not closed yet: ended with the process, whatever ends it. */
const live = new Set();
process.on('exit', () => live.forEach((b) => b.killNow()));
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
