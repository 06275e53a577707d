// The Watcher's table mode (issue 12, JS API), from the npm package in dist/npm through
// the real kubectl proxy against a churning sim: `format: 'table'` rows (typed cells,
// metadata, the object on request) and `columns()` equal the server's own Table
// (kube-apiserver's printers, `pkg/printers/internalversion/printers.go`, as the sim
// prints them) at the watcher's version, but for time columns; a `columns` event
// before `synced`; snapshot and columns identity; and a server that prints no tables
// (here: the Accept rewritten to plain JSON on the way) announced as
// `tablesUnavailable`, rows then made from objects by the fallback printer.
import { check, done, until } from './lib.mjs';
import { launchWithGc, packagePage, tableConverges } from './watcherlib.mjs';

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8001';
const NS0 = '/api/v1/namespaces/ns-0/pods';
const DEPLOYS = '/apis/apps/v1/namespaces/ns-1/deployments';

/** In the page: `{ rv, rows, columns }` of `window[name]` while synced and watching. */
const reader = (name) => new Function(`
  const w = window[${JSON.stringify(name)}];
  const s = w.status();
  if (!s.synced || s.phase !== 'watching' || !w.columns()) return null;
  return { rv: s.resourceVersion, rows: w.snapshot().map((r) => ({ cells: r.cells, metadata: r.metadata })), columns: w.columns() };
`);

const browser = await launchWithGc();
try {
  const { page, context, problems } = await packagePage(browser, BASE);
  await page.evaluate(({ NS0, DEPLOYS }) => {
    const { Watcher } = window.kl;
    window.seen = { order: [], columns: [], changes: [] };
    window.pods = new Watcher({ path: NS0, format: 'table' });
    window.pods.onColumns((c) => { window.seen.order.push('columns'); window.seen.columns.push(c); });
    window.pods.onSynced(() => window.seen.order.push('synced'));
    window.pods.onChange((c) => window.seen.changes.push(c));
    window.pods.start();
    window.full = new Watcher({ path: NS0, format: 'table', includeObject: 'Object', stripManagedFields: false });
    window.full.start();
    window.deploys = new Watcher({ path: DEPLOYS, format: 'table' });
    window.deploys.start();
  }, { NS0, DEPLOYS });

  await tableConverges(page, BASE, NS0, reader('pods'), "pods of ns-0: rows, cells and columns equal the server's Table at the watcher's version");
  await tableConverges(page, BASE, DEPLOYS, reader('deploys'), "deployments of ns-1: rows, cells and columns equal the server's Table");
  await tableConverges(page, BASE, NS0, reader('full'), "includeObject 'Object': the same rows and cells");

  const shape = await page.evaluate(() => {
    const rows = window.pods.snapshot();
    const full = window.full.snapshot();
    const r = rows[0];
    const f = full[0];
    const cols = window.pods.columns();
    return {
      keys: Object.keys(r).sort().join(','),
      managed: 'managedFields' in r.metadata,
      cellTypes: window.deploys.columns().map((c, i) => `${c.type}:${typeof window.deploys.snapshot()[0].cells[i]}`),
      frozen: Object.isFrozen(rows) && Object.isFrozen(r.cells) && Object.isFrozen(cols) && Object.isFrozen(cols[0]),
      fullKeys: Object.keys(f).sort().join(','),
      fullKind: f.object.kind,
      fullSame: f.object.metadata.resourceVersion === f.metadata.resourceVersion && f.object.metadata === f.metadata,
      fullManaged: Array.isArray(f.object.metadata.managedFields),
      columnsSame: window.pods.columns() === cols,
      columnsEvent: window.seen.columns.length > 0 && window.seen.columns.at(-1) === cols,
      order: window.seen.order.slice(0, 2).join(','),
      changeRow: window.seen.changes.length > 0 && Array.isArray(window.seen.changes[0].object.cells),
      status: window.pods.status().tablesUnavailable,
      objectsStatus: 'tablesUnavailable' in new window.kl.Watcher({ path: '/api/v1/namespaces/ns-0/pods' }).status(),
      objectsColumns: new window.kl.Watcher({ path: '/api/v1/namespaces/ns-0/pods' }).columns(),
    };
  });
  check(shape.keys === 'cells,metadata', `a row is { cells, metadata } (${shape.keys})`);
  check(!shape.managed, 'rows drop managedFields by default');
  check(shape.cellTypes.every((t) => {
    const [type, js] = t.split(':');
    return (type === 'integer' || type === 'number') ? js === 'number' : type === 'boolean' ? js === 'boolean' : true;
  }) && shape.cellTypes.some((t) => t.endsWith(':number')) && shape.cellTypes.some((t) => t === 'string:string'),
  `cells are typed JS values as the server sent them (numbers stay numbers): a deployment's (${shape.cellTypes.join(' ')})`);
  check(shape.frozen, 'the snapshot, cells and columns are frozen');
  check(shape.fullKeys === 'cells,metadata,object' && shape.fullKind === 'Pod' && shape.fullSame,
    `includeObject 'Object': rows carry the whole object, its metadata the row's (${shape.fullKeys}, ${shape.fullKind})`);
  check(shape.fullManaged, 'stripManagedFields: false keeps managedFields in table mode');
  check(shape.columnsSame && shape.columnsEvent, 'columns() is the same array until the columns change, and the columns event gave it');
  check(shape.order === 'columns,synced', `the columns come before synced (${shape.order})`);
  check(shape.changeRow, 'change events carry rows');
  check(shape.status === null, `status().tablesUnavailable is null while the server prints (${shape.status})`);
  check(!shape.objectsStatus && shape.objectsColumns === null, 'object mode: no tablesUnavailable field, columns() null');

  // Snapshot identity across changes: unchanged rows keep their object.
  const identity = await page.evaluate(async () => {
    const w = window.pods;
    const a = w.snapshot();
    const same = a === w.snapshot();
    const v = w.version;
    for (let i = 0; i < 200 && w.version === v; i++) await new Promise((r) => setTimeout(r, 50));
    const b = w.snapshot();
    const before = new Map(a.map((r) => [`${r.metadata.name}`, r]));
    let kept = 0;
    let wrong = 0;
    for (const r of b) {
      const old = before.get(r.metadata.name);
      if (!old) continue;
      if (old.metadata.resourceVersion === r.metadata.resourceVersion) {
        if (old === r) kept += 1; else wrong += 1;
      } else if (old === r) wrong += 1;
    }
    return { same, moved: w.version !== v, changed: a !== b, kept, wrong };
  });
  check(identity.same, 'snapshot() is the same array while nothing changes');
  check(identity.moved && identity.changed && identity.kept > 0 && identity.wrong === 0,
    `after a change the snapshot is new, unchanged rows the same objects (${identity.kept} kept, ${identity.wrong} wrong)`);
  check(problems.errors.length === 0, `no page errors (${problems.errors.join('; ')})`);
  await context.close();

  await fallback();
} finally {
  await browser.close();
}
done('tables');

/** A server that answers plain JSON to the Table Accept: rows from objects, announced. */
async function fallback() {
  console.log('a server that prints no tables');
  const { page, context } = await packagePage(browser, BASE);
  const path = '/api/v1/namespaces/ns-1/pods';
  // Every request of this collection goes on with `Accept: application/json` (a
  // server or proxy without tables); watches stream as before.
  await page.route((url) => url.pathname === path, (route) => route.continue({
    headers: { ...route.request().headers(), accept: 'application/json' },
  }));
  await page.evaluate((path) => {
    window.seen = { unavailable: [], columns: [] };
    window.plain = new window.kl.Watcher({ path, format: 'table' });
    window.plain.onTablesUnavailable((why) => window.seen.unavailable.push(why));
    window.plain.onColumns((c) => window.seen.columns.push(c.map((x) => `${x.name}:${x.type}:${x.format}`).join(',')));
    window.plain.start();
  }, path);
  await until('the fallback watcher to sync', () => page.evaluate(() => window.plain.status().synced), 30000);
  const got = await page.evaluate(async (path) => {
    const rows = window.plain.snapshot();
    const list = await (await fetch(path)).json();
    const created = new Map(list.items.map((o) => [o.metadata.name, o.metadata.creationTimestamp]));
    return {
      unavailable: window.seen.unavailable,
      status: window.plain.status().tablesUnavailable,
      columns: window.seen.columns,
      now: window.plain.columns().map((x) => x.name).join(','),
      rows: rows.length,
      // The fallback printer's pod cells: Name, Ready, Status, Restarts, Age (a
      // duration, as a server prints it), Node.
      cellsRight: rows.filter((r) => created.has(r.cells[0])).every((r) => r.cells.length === 6 && r.cells[0] === r.metadata.name
        && /^\d+\/\d+$/.test(r.cells[1]) && typeof r.cells[2] === 'string' && Number.isInteger(r.cells[3])
        && /^\d+(s|m|h|d|y)/.test(r.cells[4]) && typeof r.cells[5] === 'string'),
      keys: Object.keys(rows[0] ?? {}).sort().join(','),
    };
  }, path);
  check(got.unavailable.length === 1 && got.unavailable[0].length > 0, `the fallback is announced once: ${got.unavailable[0]}`);
  check(typeof got.status === 'string' && got.status === got.unavailable[0], `status().tablesUnavailable says why (${got.status})`);
  check(got.columns.at(-1) === 'Name:string:name,Ready:string:,Status:string:,Restarts:string:,Age:string:,Node:string:'
    && got.now === 'Name,Ready,Status,Restarts,Age,Node',
    `then the fallback printer's pod columns, as the CLI and the app show them (${got.columns.join(' | ')})`);
  check(got.rows > 0 && got.cellsRight && got.keys === 'cells,metadata', `rows made from objects: the fallback printer's cells (${got.rows} rows, ${got.keys})`);
  await context.close();
}
