// What the browser benchmarks share: child processes killed on exit, free ports, and a
// kubelive-sim behind the real `kubectl proxy --www DIST --www-prefix /ui/`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  const proxyPort = await freePort();
  const proxy = start(kubectl, ['proxy', '--port', String(proxyPort), '--www', dist, '--www-prefix', '/ui/', '--kubeconfig', kubeconfig], log);
  const base = `http://127.0.0.1:${proxyPort}`;
  await waitHttp(`${base}/api`, 30, 'kubectl proxy');
  await waitHttp(`${base}/ui/`, 10, 'kubectl proxy --www');
  const more = [];
  return {
    base,
    /** Another `kubectl proxy --www` over the same sim, serving `otherDist`: its base URL. */
    async proxyFor(otherDist) {
      const port = await freePort();
      more.push(start(kubectl, ['proxy', '--port', String(port), '--www', otherDist, '--www-prefix', '/ui/', '--kubeconfig', kubeconfig], log));
      const url = `http://127.0.0.1:${port}`;
      await waitHttp(`${url}/ui/`, 30, 'kubectl proxy --www (second)');
      return url;
    },
    stop() {
      more.forEach(stop);
      stop(proxy);
      stop(sim);
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
