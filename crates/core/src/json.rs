//! A fast, validating, zero-DOM JSON scanner (filled by the decoder work).
