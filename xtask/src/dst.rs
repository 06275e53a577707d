//! `cargo xtask dst [--seeds N] [--seed S] [--minutes M] [...]`: the deterministic
//! simulation (engine + simulated apiserver in one process, virtual time), in release
//! mode, through the `kubelive-dst` binary of the `kubelive-tests` crate. Other options
//! (`--start K`, `--threads T`, `--without a,b`, `--workload-ms N`, `--no-shrink`) are
//! passed through; see TESTING.md.

use crate::util;

/// Runs the simulation; fails if a seed fails (the report says how to replay it).
pub fn dst(args: &[String]) -> Result<(), String> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seeds" | "--seed" | "--start" | "--threads" | "--workload-ms" => {
                let v = it.next().ok_or(format!("{a} needs a number"))?;
                v.parse::<u64>()
                    .map_err(|_| format!("{a}: {v:?} is not a number"))?;
            }
            "--minutes" => {
                let v = it.next().ok_or("--minutes needs a number")?;
                v.parse::<f64>()
                    .map_err(|_| format!("--minutes: {v:?} is not a number"))?;
            }
            "--without" => {
                it.next().ok_or("--without needs a list of faults")?;
            }
            "--no-shrink" => {}
            other => {
                return Err(format!(
                    "unknown option {other:?}: dst [--seeds N] [--seed S] [--minutes M] \
                     [--start K] [--threads T] [--without a,b] [--workload-ms N] [--no-shrink]"
                ))
            }
        }
    }
    let mut cmd = util::cargo(&[
        "run",
        "--release",
        "--quiet",
        "-p",
        "kubelive-tests",
        "--bin",
        "kubelive-dst",
        "--",
    ]);
    cmd.args(args);
    util::run(cmd)
}
