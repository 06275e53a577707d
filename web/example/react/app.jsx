// kubelive's Watcher in React: `useSyncExternalStore` subscribes with the watcher's
// `subscribe` (its return value unsubscribes) and reads `snapshot()`, which is the
// same array until something changes: React renders again only then. Bundled by
// `cargo xtask dist` with esbuild (React ships no browser ESM) into
// dist/example/react/app.js.
import { createRoot } from 'react-dom/client';
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import init, { Watcher } from '../../npm/index.js';

/** One watcher per collection for the component's lifetime; freed when it unmounts. */
function useWatcher(options) {
  const key = JSON.stringify(options);
  const watcher = useMemo(() => new Watcher(options), [key]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    watcher.start();
    return () => watcher.free();
  }, [watcher]);
  return watcher;
}

// Renders and the watcher versions they saw, for the example's test.
window.reactRenders = [];

/** The status line: its own component, so status events do not render the table. */
function Status({ watcher }) {
  const phase = useSyncExternalStore(
    (notify) => watcher.onStatus(notify),
    () => watcher.status().phase,
  );
  const synced = useSyncExternalStore(
    (notify) => watcher.onStatus(notify),
    () => watcher.status().synced,
  );
  return <p id="react-status" data-phase={phase} data-synced={String(synced)}>{phase}{synced ? ' · synced' : ''}</p>;
}

function Pods({ namespace }) {
  const watcher = useWatcher({ path: '/api/v1/pods', namespace, format: 'table' });
  const rows = useSyncExternalStore(watcher.subscribe, watcher.snapshot);
  const columns = useSyncExternalStore(watcher.subscribe, watcher.columns) ?? [];
  window.reactRenders.push(watcher.version);
  window.reactWatcher = watcher;
  const shown = columns.map((c, i) => [c, i]).filter(([c]) => c.priority === 0);
  return (
    <section>
      <Status watcher={watcher} />
      <p>{rows.length} pods in {namespace}</p>
      <table>
        <thead>
          <tr>{shown.map(([c]) => <th key={c.name} title={c.description}>{c.name}</th>)}</tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.metadata.uid}>
              {shown.map(([c, i]) => <td key={c.name}>{String(row.cells[i] ?? '<none>')}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

await init();
createRoot(document.getElementById('root')).render(<Pods namespace="ns-0" />);
