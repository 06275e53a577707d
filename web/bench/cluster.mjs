// What the browser benchmarks share: child processes killed on exit, free ports, and a
// kubelive-sim behind the real `kubectl proxy --www DIST --www-prefix /ui/`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as netServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../tests/lib.mjs';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

export function freePort() {
  return new Promise((res, rej) => {
    const s = netServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

/** Child processes, killed on exit (by their own pid, never by name). */
const children = [];
export function start(cmd, args, log = () => {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', () => {});
  child.stderr.on('data', () => {});
  children.push(child);
  child.on('exit', (code, sig) => {
    if (!child.stopping) log(`${cmd} exited (${code ?? sig})`);
  });
  return child;
}
export function stop(child) {
  child.stopping = true;
  try { child.kill('SIGKILL'); } catch (_) { /* gone */ }
}
process.on('exit', () => children.forEach(stop));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

/** CPU seconds (user + system) a process has used, from /proc (NaN elsewhere). */
export function cpuSeconds(pid) {
  try {
    // Fields after the command's closing parenthesis: utime and stime are 14 and 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch (_) {
    return NaN;
  }
}

/**
 * CPU seconds used so far by a process and all its descendants, by Chromium process
 * type (`--type=renderer`, the network service, ...; "browser" for the root), from /proc.
 */
export function treeCpuSeconds(root) {
  const parent = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch (_) { /* gone */ }
  }
  const inTree = (pid) => {
    for (let p = pid; p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  const by = {};
  for (const pid of parent.keys()) {
    if (!inTree(pid)) continue;
    let type = 'browser';
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const t = /--type=([a-z-]+)/.exec(cmd);
      const sub = /--utility-sub-type=([\w.]+)/.exec(cmd);
      if (t) type = sub ? `${t[1]}:${sub[1].split('.').pop()}` : t[1];
    } catch (_) { /* gone */ }
    const s = cpuSeconds(pid);
    if (!Number.isNaN(s)) by[type] = (by[type] || 0) + s;
    if (type === 'renderer') {
      // The renderer's threads by name (its main thread is CrRendererMain).
      try {
        for (const t of readdirSync(`/proc/${pid}/task`)) {
          const name = readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim().replace(/\d+$/, '');
          const ts = cpuSeconds(`${pid}/task/${t}`);
          if (!Number.isNaN(ts)) by[`renderer/${name}`] = (by[`renderer/${name}`] || 0) + ts;
        }
      } catch (_) { /* gone */ }
    }
  }
  return by;
}

export async function waitHttp(url, secs, what) {
  await until(`${what} (${url})`, async () => {
    const r = await fetch(url).catch(() => null);
    return r && r.ok;
  }, secs * 1000, 200);
}

/**
 * `kubelive-sim serve` with `objects` pods churning `churn`/s in 20 namespaces (and
 * `extra` flags), behind `kubectl proxy` serving `dist` at /ui/. Returns its base URL
 * and `stop()`.
 */
export async function startCluster({ simBin, kubectl = 'kubectl', dist, objects, churn, extra = [], log = () => {} }) {
  if (!simBin) throw new Error('SIM_BIN: the kubelive-sim binary is needed');
  const simPort = await freePort();
  const sim = start(simBin, ['serve', '--port', String(simPort), '--objects', String(objects), '--churn', String(churn), '--namespaces', '20', ...extra], log);
  const t0 = Date.now();
  // The sim populates in the background and holds requests until it is done.
  await waitHttp(`http://127.0.0.1:${simPort}/api/v1/pods?limit=1`, 600, 'kubelive-sim');
  log(`kubelive-sim: ${objects} pods, churn ${churn}/s ${extra.join(' ')}, ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const tmp = mkdtempSync(join(tmpdir(), 'kubelive-bench-'));
  const kubeconfig = join(tmp, 'kubeconfig');
  writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n  cluster:\n    server: http://127.0.0.1:${simPort}\n`
    + 'contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: sim\ncurrent-context: sim\nusers:\n- name: sim\n  user: {}\n');
  const proxies = [];
  /** Another `kubectl proxy --www dir` in front of the same sim (another build). */
  const proxyFor = async (www) => {
    const proxyPort = await freePort();
    const proxy = start(kubectl, ['proxy', '--port', String(proxyPort), '--www', www, '--www-prefix', '/ui/', '--kubeconfig', kubeconfig], log);
    proxies.push(proxy);
    const base = `http://127.0.0.1:${proxyPort}`;
    await waitHttp(`${base}/api`, 60, 'kubectl proxy');
    await waitHttp(`${base}/ui/`, 60, 'kubectl proxy --www');
    return {
      base,
      /** CPU seconds (user + system) used so far by the sim and by this kubectl proxy. */
      cpu: () => ({ sim: cpuSeconds(sim.pid), proxy: cpuSeconds(proxy.pid) }),
    };
  };
  const first = await proxyFor(dist);
  return {
    ...first,
    proxyFor,
    stop() {
      proxies.forEach(stop);
      stop(sim);
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
