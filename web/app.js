// Loads the wasm module (relative URLs: the app may be served under any prefix)
// and mounts the app. Kept external so the page's CSP needs no inline script.
import init, { startApp } from './kubelive_web.js';

init().then(
  () => startApp(document.getElementById('app')),
  (err) => {
    const boot = document.querySelector('.boot');
    if (boot) boot.textContent = 'kubelive failed to load: ' + err;
    console.error(err);
  },
);
