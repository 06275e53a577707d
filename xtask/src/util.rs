//! Small helpers for running commands and reporting steps.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// The workspace root: the nearest directory at or above the current one that holds
/// `xtask/Cargo.toml` (`cargo xtask` runs from inside the checkout), else the one this
/// binary was built in. Not only the latter: a target directory copied into another
/// checkout (a git worktree) keeps its built xtask, whose compile-time path would then
/// point every step at the first checkout.
pub fn root() -> PathBuf {
    let built_in = || {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask has a parent directory")
            .to_path_buf()
    };
    let Ok(cwd) = std::env::current_dir() else {
        return built_in();
    };
    cwd.ancestors()
        .find(|d| d.join("xtask/Cargo.toml").is_file() && d.join("Cargo.toml").is_file())
        .map(PathBuf::from)
        .unwrap_or_else(built_in)
}

pub fn cargo(args: &[&str]) -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.args(args).current_dir(root());
    c
}

pub fn command(program: &str, args: &[&str]) -> Command {
    let mut c = Command::new(program);
    c.args(args).current_dir(root());
    c
}

/// Runs `cmd`, failing with a message naming it if it does not exit 0.
pub fn run(mut cmd: Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    eprintln!("$ {shown}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

/// Runs `cmd` and returns its stdout.
pub fn output(mut cmd: Command) -> Result<String, String> {
    let shown = format!("{cmd:?}");
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{shown} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Steps of a long recipe: every step runs, failures are collected, and the end
/// prints one summary line per step and a closing `N passed, N failed` line.
#[derive(Default)]
pub struct Steps {
    results: Vec<(String, Result<(), String>, f64)>,
}

impl Steps {
    pub fn run(&mut self, name: &str, cmd: Command) {
        self.step(name, || run(cmd));
    }

    pub fn step(&mut self, name: &str, f: impl FnOnce() -> Result<(), String>) {
        eprintln!("\n==> {name}");
        let started = Instant::now();
        let result = f();
        if let Err(e) = &result {
            eprintln!("==> FAILED: {name}: {e}");
        }
        self.results
            .push((name.to_string(), result, started.elapsed().as_secs_f64()));
    }

    pub fn finish(self) -> Result<(), String> {
        eprintln!("\n==> summary");
        let mut failed = 0;
        for (name, result, secs) in &self.results {
            match result {
                Ok(()) => eprintln!("  ok     {name} ({secs:.0} s)"),
                Err(e) => {
                    failed += 1;
                    eprintln!("  FAILED {name} ({secs:.0} s): {e}");
                }
            }
        }
        let passed = self.results.len() - failed;
        println!("xtask: {passed} passed, {failed} failed");
        if failed == 0 {
            Ok(())
        } else {
            Err(format!("{failed} step(s) failed"))
        }
    }
}
