//! Workspace-level tests of kubelive.
//!
//! * [`dst`]: deterministic simulation of the engine against the sim's model, one seed
//!   at a time ([`scenario`] says what a seed does, [`driver`] runs many and shrinks).
//! * [`arbitrary`]: seeded generators of arbitrary bytes and response sequences, shared
//!   by the property tests in `tests/` and the cargo-fuzz targets in `fuzz/`.
//!
//! See TESTING.md at the workspace root.

pub mod arbitrary;
pub mod driver;
pub mod dst;
pub mod scan;
pub mod scenario;
pub mod staleness;
