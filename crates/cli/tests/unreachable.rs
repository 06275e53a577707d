//! An unreachable server: `--duration` holds from the first moment (discovery
//! included), the message says once, like kubectl, what to check, and the exit status
//! says the server was never reached.
//!
//! No timing assertions: the bound on each run only turns a hang into a failure.

use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn run(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubelive"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let limit = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(_status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            return (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into(),
            );
        }
        if Instant::now() > limit {
            let _ = child.kill();
            panic!("kubelive {args:?} did not stop after its --duration");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn duration_holds_through_discovery_against_an_unreachable_server() {
    let port = closed_port();
    let server = format!("http://127.0.0.1:{port}");
    for resource in ["pods", "/api/v1/pods"] {
        let (code, err) = run(&["watch", resource, "--server", &server, "--duration", "3"]);
        assert_eq!(code, Some(1), "{resource}: {err}");
        let hint = format!(
            "The connection to the server 127.0.0.1:{port} was refused - is `kubectl proxy` running"
        );
        assert_eq!(
            err.matches(&hint).count(),
            1,
            "{resource}: the hint once, in:\n{err}"
        );
        assert!(err.contains("--server URL"), "{err}");
        assert!(
            err.contains("kubelive: error:") && err.contains("never reached")
                || err.contains("--duration ended before the server answered"),
            "{resource}: {err}"
        );
    }
}
