//! The browser side: dist, demo, and the browser test steps (owned by the web work).

use crate::util::Steps;

pub fn dist(_args: &[String]) -> Result<(), String> {
    Err("dist is not built yet".into())
}

pub fn demo(_args: &[String]) -> Result<(), String> {
    Err("demo is not built yet".into())
}

/// Adds the browser test steps (wasm-bindgen-test in Chromium, Playwright end to end).
pub fn test_steps(_steps: &mut Steps) {}
