//! Engine bugs the simulation found, as shrunk scenarios (TESTING.md, "Bugs found").
//! Each asserts the correct behaviour and runs in CI. All are fixed (core commits "fix
//! four bugs the simulation found" and "never replay older state..."). While a newly
//! found bug is open, `Scenario::avoid_known_bugs` can steer the sweep clear of it.

use kubelive_tests::dst;
use kubelive_tests::scenario::Scenario;

fn check(seed: u64, without: &[&str], workload_ms: Option<u64>) {
    let without: Vec<String> = without.iter().map(|s| s.to_string()).collect();
    let scn = Scenario::raw(seed).with_overrides(&without, workload_ms);
    if let Err(v) = dst::run_traced(&scn) {
        panic!(
            "{scn}\nfails at {} ms: {}\n{}",
            v.at_ms,
            v.what,
            v.trace.join("\n")
        );
    }
}

/// Bug 1: a server that ignores `sendInitialEvents` (pre-1.27) and watches that end
/// before the 60 s sync deadline: every clean end restarts the streaming list and its
/// deadline, so the engine never falls back to LIST+WATCH and never syncs.
#[test]
fn bug1_streaming_list_never_falls_back() {
    check(
        20,
        &[
            "split",
            "http",
            "malformed",
            "compact",
            "restart",
            "list-cut",
        ],
        Some(11_250),
    );
}

/// Bug 2: LIST page 1 cut mid-body, retried after a backoff: the retry is a new
/// snapshot but keeps the epoch, so objects the cut page delivered (and that were
/// deleted since) survive the sweep: ghosts in the store after Synced.
#[test]
fn bug2_retried_first_page_leaves_ghosts() {
    check(41, &["cut", "abort", "lag"], None);
}

/// Finding 3: every paginated list cut by an expired continue token: the engine
/// relists back to back with no backoff (a hot loop against the apiserver) and its
/// store keeps the objects of every failed attempt.
#[test]
fn finding3_continue_expiry_hot_loop() {
    let without = ["nobookmarks", "compact", "restart"].map(String::from);
    let scn = Scenario::raw(1505).with_overrides(&without, None);
    let stats = dst::run(&scn).unwrap_or_else(|v| panic!("{}", v.what));
    // 11 simulated minutes of workload + 5 of quiet: a few hundred requests at most.
    // The engine makes ~26 000 (a relist every ~25 ms).
    assert!(
        stats.requests < 2_000,
        "{} requests in {} simulated s",
        stats.requests,
        stats.sim_ms / 1000
    );
}

/// Bug 4: after a streaming list falls back to LIST+WATCH, the first LIST still uses
/// `resourceVersion=0` (`initial_list_any_version`): a lagging replica serves older
/// versions than consumers were already shown.
#[test]
fn bug4_any_version_list_after_fallback() {
    check(9608, &["split"], Some(86_250));
}
