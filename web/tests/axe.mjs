// axe-core (npm, injected into the page as it is): the serious and critical violations
// of what the page shows now. The app's rows that flash or fade (a change, a deletion:
// 1.2-1.5 s animations of their background and opacity) are left out, their colours
// being in between for that moment; the rows at rest are checked.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { check } from './lib.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export async function axeViolations(page) {
  // Evaluated as a script (the app's CSP forbids inline scripts, not the driver's).
  await page.evaluate(AXE);
  const res = await page.evaluate(async () => {
    const r = await window.axe.run(
      { exclude: [['.row.gone'], ['.row.added-a'], ['.row.added-b'], ['.row.mod-a'], ['.row.mod-b']] },
      { resultTypes: ['violations'] },
    );
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 2).join(' ')}`),
    }));
  });
  return res.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Checks that axe finds no serious or critical violation; `what` names the view. */
export async function axeCheck(page, what) {
  const bad = await axeViolations(page);
  check(bad.length === 0, `${what}: no serious or critical axe violation${bad.length ? `: ${JSON.stringify(bad, null, 1)}` : ''}`);
}
