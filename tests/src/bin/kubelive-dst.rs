//! `kubelive-dst`: the deterministic simulation over many seeds (`cargo xtask dst`).

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match kubelive_tests::driver::main_with(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kubelive-dst: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
