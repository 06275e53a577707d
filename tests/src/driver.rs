//! Runs many seeds (on every core), shrinks a failure and prints how to replay it.
//! Shared by the `kubelive-dst` binary (`cargo xtask dst`) and the `dst` test.

use crate::dst::{self, Stats, Violation};
use crate::scenario::Scenario;
use crate::staleness::Table;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Number of seeds (from `start`).
    pub seeds: u64,
    pub start: u64,
    /// Exactly one seed, traced, with the overrides below.
    pub seed: Option<u64>,
    /// Run seeds until this much wall time passed (a soak).
    pub minutes: Option<f64>,
    pub threads: usize,
    pub without: Vec<String>,
    /// Keep only these faults (every other is removed from each scenario).
    pub only: Option<Vec<String>>,
    pub workload_ms: Option<u64>,
    /// Shrink a failure (on by default).
    pub shrink: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seeds: 10_000,
            start: 0,
            seed: None,
            minutes: None,
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            without: Vec::new(),
            only: None,
            workload_ms: None,
            shrink: true,
        }
    }
}

pub const USAGE: &str = "kubelive-dst [--seeds N] [--start K] [--seed S] [--minutes M] \
[--threads T] [--without fault,fault] [--only fault,fault] [--workload-ms MS] [--no-shrink]";

impl Options {
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options::default();
        let mut it = args.iter();
        let mut start_given = false;
        while let Some(a) = it.next() {
            let mut val = |name: &str| {
                it.next()
                    .cloned()
                    .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
            };
            let num = |s: String, name: &str| {
                s.parse::<u64>()
                    .map_err(|_| format!("{name}: {s:?} is not a number"))
            };
            match a.as_str() {
                "--seeds" => o.seeds = num(val(a)?, a)?,
                "--start" => {
                    o.start = num(val(a)?, a)?;
                    start_given = true;
                }
                "--seed" => o.seed = Some(num(val(a)?, a)?),
                "--minutes" => {
                    let v = val(a)?;
                    o.minutes = Some(
                        v.parse()
                            .map_err(|_| format!("--minutes: {v:?} is not a number"))?,
                    )
                }
                "--threads" => o.threads = num(val(a)?, a)?.max(1) as usize,
                "--without" => {
                    o.without = val(a)?
                        .split(',')
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect();
                    check_names(&o.without)?;
                }
                "--only" => {
                    let only: Vec<String> = val(a)?
                        .split(',')
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect();
                    check_names(&only)?;
                    o.only = Some(only);
                }
                "--workload-ms" => o.workload_ms = Some(num(val(a)?, a)?),
                "--no-shrink" => o.shrink = false,
                "-h" | "--help" => return Err(USAGE.to_string()),
                other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
            }
        }
        if o.minutes.is_some() && !start_given {
            // Soaks explore seeds CI does not run.
            o.start = 1_000_000
                + std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs() % 1_000_000_000)
                    .unwrap_or(0)
                    * 1_000;
        }
        Ok(o)
    }

    pub fn scenario(&self, seed: u64) -> Scenario {
        Scenario::from_seed(seed).with_overrides(&self.removed(), self.workload_ms)
    }

    /// The faults removed from every scenario: `--without`, and all but `--only`.
    pub fn removed(&self) -> Vec<String> {
        let mut without = self.without.clone();
        if let Some(only) = &self.only {
            without.extend(
                crate::scenario::FAULT_NAMES
                    .iter()
                    .filter(|n| !only.iter().any(|o| o == *n))
                    .map(|n| n.to_string()),
            );
        }
        without
    }
}

fn check_names(names: &[String]) -> Result<(), String> {
    for w in names {
        if !crate::scenario::FAULT_NAMES.contains(&w.as_str()) {
            return Err(format!(
                "unknown fault {w:?}; known: {}",
                crate::scenario::FAULT_NAMES.join(",")
            ));
        }
    }
    Ok(())
}

/// The result of many seeds.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub seeds: u64,
    pub elapsed: Duration,
    pub stats: Stats,
    /// Staleness per fault class.
    pub staleness: Table,
}

impl Summary {
    pub fn seeds_per_sec(&self) -> f64 {
        self.seeds as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn line(&self) -> String {
        let s = &self.stats;
        let st = &s.staleness;
        format!(
            "{} seeds in {:.1} s ({:.0} seeds/s): {:.1} simulated hours, {} changes, {} requests, \
             {} events, {} relists, {} 410s and {} other failures served; staleness p50 {} ms, \
             p99 {} ms, max {} ms; under fresh faults at most {} ms beyond excused waits; \
             {} silent connections given up; {} watch chunks of several events; \
             {} LIST pages asked for ahead, {} of them answered or broken before their turn; \
             {} page reloads restored a saved view",
            self.seeds,
            self.elapsed.as_secs_f64(),
            self.seeds_per_sec(),
            s.sim_ms as f64 / 3_600_000.0,
            s.changes,
            s.requests,
            s.events,
            s.relists,
            s.expired_served,
            s.failures_served,
            st.quantile(0.5),
            st.quantile(0.99),
            st.max(),
            s.fresh_excess_max,
            s.silences_noticed,
            s.multi_event_chunks,
            s.pages_ahead,
            s.pages_ahead_early,
            s.reloads,
        )
    }
}

/// A failing seed, shrunk, with the lines that replay it.
#[derive(Clone, Debug)]
pub struct Failure {
    pub seed: u64,
    pub violation: Violation,
    pub shrunk: Scenario,
    pub shrunk_violation: Violation,
    pub without: Vec<String>,
    pub workload_ms: Option<u64>,
}

impl Failure {
    pub fn report(&self) -> String {
        let mut s = format!(
            "DST FAILURE seed {}: at {} ms: {}\n",
            self.seed, self.violation.at_ms, self.violation.what
        );
        s.push_str(&format!(
            "replay: cargo xtask dst --seed {}\n   or: KUBELIVE_DST_SEED={} cargo test --release -p kubelive-tests --test dst -- replay --nocapture\n",
            self.seed, self.seed
        ));
        let mut over = String::new();
        let mut env = String::new();
        if !self.without.is_empty() {
            over.push_str(&format!(" --without {}", self.without.join(",")));
            env.push_str(&format!("KUBELIVE_DST_WITHOUT={} ", self.without.join(",")));
        }
        if let Some(ms) = self.workload_ms {
            over.push_str(&format!(" --workload-ms {ms}"));
            env.push_str(&format!("KUBELIVE_DST_WORKLOAD_MS={ms} "));
        }
        s.push_str(&format!(
            "shrunk: {}\n  fails at {} ms: {}\nreplay shrunk: cargo xtask dst --seed {}{over}\n   or: KUBELIVE_DST_SEED={} {env}cargo test --release -p kubelive-tests --test dst -- replay --nocapture\n",
            self.shrunk, self.shrunk_violation.at_ms, self.shrunk_violation.what, self.seed, self.seed
        ));
        if !self.shrunk_violation.trace.is_empty() {
            s.push_str("last steps of the shrunk run (ms, what):\n");
            for l in &self.shrunk_violation.trace {
                s.push_str("  ");
                s.push_str(l);
                s.push('\n');
            }
        }
        s
    }
}

/// Removes faults one by one, then halves the workload, keeping whatever still fails.
pub fn shrink(seed: u64, opts: &Options, first: Violation) -> Failure {
    let mut without = opts.removed();
    let mut workload_ms = opts.workload_ms;
    let base = Scenario::from_seed(seed);
    let build = |w: &[String], ms: Option<u64>| base.clone().with_overrides(w, ms);
    let mut current = build(&without, workload_ms);
    let mut last = first.clone();
    if opts.shrink {
        let names: Vec<&'static str> = current.faults.iter().map(|f| f.name()).collect();
        for name in names {
            let mut w = without.clone();
            w.push(name.to_string());
            let cand = build(&w, workload_ms);
            if let Err(v) = dst::run(&cand) {
                without = w;
                current = cand;
                last = v;
            }
        }
        loop {
            let ms = current.workload_ms / 2;
            if ms < 10_000 {
                break;
            }
            let cand = build(&without, Some(ms));
            match dst::run(&cand) {
                Err(v) => {
                    workload_ms = Some(ms);
                    current = cand;
                    last = v;
                }
                Ok(_) => break,
            }
        }
    }
    let traced = dst::run_traced(&current).err().unwrap_or(last);
    Failure {
        seed,
        violation: first,
        shrunk: current,
        shrunk_violation: traced,
        without,
        workload_ms,
    }
}

/// Runs the seeds of `opts` on `opts.threads` threads. Stops at the first failure
/// (the lowest failing seed among those run), shrinks it and returns it.
pub fn run_many(opts: &Options) -> Result<Summary, Box<Failure>> {
    let started = Instant::now();
    if let Some(seed) = opts.seed {
        let scn = opts.scenario(seed);
        println!("{scn}");
        return match dst::run_traced(&scn) {
            Ok(stats) => {
                let mut staleness = Table::default();
                staleness.add(&fault_names(&scn), &stats.staleness);
                Ok(Summary {
                    seeds: 1,
                    elapsed: started.elapsed(),
                    stats,
                    staleness,
                })
            }
            Err(v) => Err(Box::new(shrink(seed, opts, v))),
        };
    }
    let deadline = opts
        .minutes
        .map(|m| started + Duration::from_secs_f64(m * 60.0));
    let next = AtomicU64::new(opts.start);
    let stop = AtomicBool::new(false);
    let done = AtomicU64::new(0);
    let failed: Mutex<Option<(u64, Violation)>> = Mutex::new(None);
    let total: Mutex<Stats> = Mutex::new(Stats::default());
    let table: Mutex<Table> = Mutex::new(Table::default());
    let end = opts.start.saturating_add(opts.seeds);
    std::thread::scope(|s| {
        for _ in 0..opts.threads.max(1) {
            s.spawn(|| {
                let mut local = Stats::default();
                let mut local_table = Table::default();
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        break;
                    }
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if deadline.is_none() && seed >= end {
                        break;
                    }
                    let scn = opts.scenario(seed);
                    match dst::run(&scn) {
                        Ok(st) => {
                            local_table.add(&fault_names(&scn), &st.staleness);
                            local.add(&st);
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(v) => {
                            let mut f = failed.lock().unwrap_or_else(|e| e.into_inner());
                            if f.as_ref().is_none_or(|(s, _)| seed < *s) {
                                *f = Some((seed, v));
                            }
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
                total.lock().unwrap_or_else(|e| e.into_inner()).add(&local);
                table
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .merge(&local_table);
            });
        }
    });
    if let Some((seed, v)) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(Box::new(shrink(seed, opts, v)));
    }
    Ok(Summary {
        seeds: done.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
        stats: total.into_inner().unwrap_or_else(|e| e.into_inner()),
        staleness: table.into_inner().unwrap_or_else(|e| e.into_inner()),
    })
}

fn fault_names(scn: &Scenario) -> Vec<&'static str> {
    scn.faults.iter().map(|f| f.name()).collect()
}

/// The binary's main: prints the summary or the failure report.
pub fn main_with(args: &[String]) -> Result<(), String> {
    let opts = Options::parse(args)?;
    if opts.seed.is_none() {
        match opts.minutes {
            Some(m) => println!(
                "dst: soak for {m} min from seed {} on {} threads",
                opts.start, opts.threads
            ),
            None => println!(
                "dst: seeds {}..{} on {} threads",
                opts.start,
                opts.start + opts.seeds,
                opts.threads
            ),
        }
    }
    match run_many(&opts) {
        Ok(summary) => {
            println!("dst: ok: {}", summary.line());
            println!(
                "staleness per fault class (simulated time from a change to the store showing it):"
            );
            print!("{}", summary.staleness.render());
            Ok(())
        }
        Err(f) => {
            eprintln!("{}", f.report());
            Err(format!("seed {} failed", f.seed))
        }
    }
}
