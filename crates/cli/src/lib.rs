//! kubelive on the command line: a native driver of `kubelive-core` over real HTTP.
//!
//! `kubelive watch pods` is `kubectl get -w` that never loses its place. The engine
//! (crates/core) makes every protocol decision; this crate only moves bytes and time:
//! [`http`] speaks HTTP/1.1 over `std::net`, [`run`] owns the engine and its I/O
//! threads, [`discovery`] turns `po` into `/api/v1/pods`, [`output`] prints, [`tree`]
//! runs `kubelive tree` (one engine per kind, joined by owner).

pub mod args;
pub mod discovery;
pub mod http;
pub mod output;
pub mod run;
pub mod tree;

use args::Command;

/// Runs the command line (arguments after the program name); returns the exit status.
pub fn main_with_args(args: &[String]) -> i32 {
    match args::parse(args) {
        Err(e) => {
            eprintln!("kubelive: error: {e}\nRun 'kubelive --help' for usage.");
            2
        }
        Ok(Command::Help) => {
            print!("{}", args::HELP);
            0
        }
        Ok(Command::Version) => {
            println!("kubelive {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Ok(Command::Watch(w)) => run::watch(w),
        Ok(Command::Tree(t)) => tree::tree(t),
    }
}
