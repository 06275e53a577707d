//! Seeded generators of arbitrary inputs (filled in by the property tests commit).
