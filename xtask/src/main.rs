//! `cargo xtask <command>`: the project's recipes in one place.
//!
//! * `setup`  installs what the others need (wasm target, wasm-bindgen-cli at the
//!   Cargo.lock version, Chromium + ChromeDriver, Firefox ESR + geckodriver, WebKitGTK +
//!   WebKitWebDriver + Xvfb, the npm test packages);
//! * `dist`   builds the browser app into `dist/` and the npm package into `dist/npm/`;
//! * `npm`    runs the npm package's test step alone (or some of its scripts);
//! * `demo`   runs the simulated cluster behind the real `kubectl proxy` and serves the app;
//! * `test`   runs everything that proves kubelive works;
//! * `e2e`    runs the browser end-to-end scripts (all, or some, repeatedly);
//! * `bench`  runs the benchmarks behind BENCHMARKS.md;
//! * `dst`    runs the deterministic simulation with more seeds or minutes.

mod bench;
mod billbench;
mod dst;
mod e2ebench;
mod npm;
mod setup;
mod util;
mod web;
mod webbench;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    let result = match command.as_str() {
        "setup" => setup::all(),
        "dist" => setup::web_tools().and_then(|()| web::dist(rest)),
        "npm" => setup::web_tools().and_then(|()| npm::run_command(rest)),
        "demo" => setup::web_tools().and_then(|()| web::demo(rest)),
        "test" => test(rest),
        "e2e" => setup::web_tools().and_then(|()| web::e2e_command(rest)),
        "bench" => bench::bench(rest),
        "dst" => dst::dst(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        other => {
            eprintln!("unknown command {other:?}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask {command}: {e}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: cargo xtask <setup|dist|npm|demo|test|e2e|bench|dst> [options]
  setup              install the wasm target, wasm-bindgen-cli, the browsers and drivers, npm packages
  dist               build the web app into dist/, the npm package into dist/npm/
  npm [NAME...]      the npm package's tests (pack, tsc, the Watcher, the component, React)
  demo [--pods N]    simulated cluster + kubectl proxy --www dist, prints the URL
  test               everything that proves it works (what CI runs)
  e2e [--repeat N] [NAME...]  the browser end-to-end scripts (web/tests/*NAME*.mjs)
  bench              benchmarks; figures for BENCHMARKS.md
  bench discovery [--groups N] [--runs N] [--latency MS] [--before DIST]
                     time to the full resource picker (one build, or two)
  dst [--seeds N] [--seed S] [--minutes M]   deterministic simulation";

fn test(_args: &[String]) -> Result<(), String> {
    // Installs are a precondition, not a step: without them nothing else means anything.
    setup::all()?;
    let mut steps = util::Steps::default();
    steps.run(
        "cargo fmt --check",
        util::cargo(&["fmt", "--all", "--", "--check"]),
    );
    steps.run(
        "cargo clippy (native, all targets, -D warnings)",
        util::cargo(&[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]),
    );
    steps.run(
        "cargo test: core, sim (with kubectl), CLI (through kubectl proxy), web (native)",
        util::cargo(&[
            "test",
            "--no-fail-fast",
            "--workspace",
            "--exclude",
            "kubelive-tests",
        ]),
    );
    steps.run(
        "cargo test --release: deterministic simulation and property tests",
        util::cargo(&["test", "--release", "-p", "kubelive-tests"]),
    );
    web::test_steps(&mut steps);
    steps.finish()
}
