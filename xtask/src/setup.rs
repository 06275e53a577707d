//! Installs what the recipes need, on a fresh machine of this kind.

use crate::util::{self, command, have, output, root, run};
use std::path::Path;

/// Everything: the web toolchain and the browser test tools.
pub fn all() -> Result<(), String> {
    web_tools()?;
    browser()?;
    other_browsers()?;
    npm_packages()
}

/// The wasm target and wasm-bindgen-cli at exactly the version in Cargo.lock.
pub fn web_tools() -> Result<(), String> {
    let targets = output(command("rustup", &["target", "list", "--installed"]))?;
    if !targets
        .lines()
        .any(|t| t.trim() == "wasm32-unknown-unknown")
    {
        run(command(
            "rustup",
            &["target", "add", "wasm32-unknown-unknown"],
        ))?;
    }
    let wanted = locked_version("wasm-bindgen")?;
    let installed = output(command("wasm-bindgen", &["--version"])).unwrap_or_default();
    if installed.split_whitespace().nth(1) != Some(wanted.as_str()) {
        eprintln!("installing wasm-bindgen-cli {wanted} (matches Cargo.lock; takes a few minutes)");
        // No --locked: the registry mirror may lack a locked dependency version.
        run(util::cargo(&[
            "install",
            "wasm-bindgen-cli",
            "--version",
            &wanted,
        ]))?;
    }
    Ok(())
}

/// Chromium and ChromeDriver for the browser tests.
pub fn browser() -> Result<(), String> {
    apt_install(
        &["/usr/bin/chromium", "/usr/bin/chromedriver"],
        &["chromium", "chromium-driver"],
        "Chromium and ChromeDriver",
        "elsewhere install your distribution's chromium and its chromedriver",
    )
}

/// geckodriver's version from crates.io (Debian packages none): the one these tests ran with.
const GECKODRIVER: &str = "0.37.1";

/// Firefox ESR with geckodriver, and WebKitGTK's MiniBrowser with WebKitWebDriver
/// (drawn into Xvfb: WebKitGTK has no headless mode), for the cross-browser tests
/// (`web/tests/xb`). The browsers are the distribution's, never a download.
pub fn other_browsers() -> Result<(), String> {
    apt_install(
        &[
            "/usr/bin/firefox-esr",
            "/usr/bin/WebKitWebDriver",
            "/usr/bin/Xvfb",
        ],
        &["firefox-esr", "webkit2gtk-driver", "xvfb"],
        "Firefox ESR, WebKitWebDriver (with WebKitGTK's MiniBrowser) and Xvfb",
        "elsewhere install your distribution's Firefox, WebKitGTK's WebKitWebDriver and Xvfb, \
         and set FIREFOX, MINIBROWSER, WEBKITWEBDRIVER where they are not at Debian's paths",
    )?;
    let installed = output(command("geckodriver", &["--version"])).unwrap_or_default();
    if installed.split_whitespace().nth(1) != Some(GECKODRIVER) {
        eprintln!("installing geckodriver {GECKODRIVER} from crates.io (takes about 6 minutes on 2 cores)");
        run(util::cargo(&[
            "install",
            "geckodriver",
            "--version",
            GECKODRIVER,
        ]))?;
    }
    Ok(())
}

/// Installs Debian `packages` unless every file of `present` exists (apt-get as root on
/// Debian/Ubuntu; elsewhere an error saying what to install).
fn apt_install(
    present: &[&str],
    packages: &[&str],
    what: &str,
    elsewhere: &str,
) -> Result<(), String> {
    if present.iter().all(|p| Path::new(p).exists()) {
        return Ok(());
    }
    let is_root = output(command("id", &["-u"])).is_ok_and(|u| u.trim() == "0");
    if is_root && have("apt-get") {
        run(command("apt-get", &["update"]))?;
        let mut install = command("apt-get", &["install", "-y"]);
        install.args(packages);
        return run(install);
    }
    Err(format!(
        "{what} are needed at {}. On Debian/Ubuntu run as root: apt-get install -y {} ({elsewhere})",
        present.join(", "),
        packages.join(" ")
    ))
}

/// The browser end-to-end test packages (playwright-core only: never a browser download)
/// and binaryen, whose `wasm-opt -Oz` shrinks `dist`'s modules (Debian's binaryen 108
/// cannot parse what this rustc emits: `table.fill`).
pub fn npm_packages() -> Result<(), String> {
    let web = root().join("web");
    // Every package: a tree installed before one was added installs again.
    if ["playwright-core", "axe-core", "binaryen"]
        .iter()
        .all(|p| web.join("node_modules").join(p).exists())
    {
        return Ok(());
    }
    if !web.join("package.json").exists() {
        return Ok(());
    }
    let mut npm = command("npm", &["install", "--no-audit", "--no-fund"]);
    npm.current_dir(&web)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
    run(npm)
}

/// `benches/node`'s packages (@kubernetes/client-node: the peer in benchmarks, and the
/// informer that must converge against the sim in the e2e step), from its lock file.
pub fn node_peers() -> Result<(), String> {
    let dir = root().join("benches/node");
    if dir.join("node_modules/@kubernetes/client-node").exists() {
        return Ok(());
    }
    let mut npm = command("npm", &["ci", "--no-audit", "--no-fund"]);
    npm.current_dir(&dir);
    run(npm)
}

/// The version of `package` recorded in Cargo.lock.
pub fn locked_version(package: &str) -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let needle = format!("name = \"{package}\"\nversion = \"");
    let start = lock
        .find(&needle)
        .ok_or_else(|| format!("{package} is not in Cargo.lock"))?
        + needle.len();
    let end = lock[start..].find('"').ok_or("Cargo.lock is malformed")?;
    Ok(lock[start..start + end].to_string())
}
