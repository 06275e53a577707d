//! The one seeded generator (SplitMix64): the engine's jitter and watch timeouts, the
//! sim's workloads and faults, and the tests' draws. Same seed, same sequence, on every
//! platform, so a failing seed replays exactly.

/// SplitMix64 with the draws kubelive needs.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (mixed with the golden-ratio constant, so that seeds 0, 1,
    /// 2... start far apart).
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// A generator whose state is `state` as it is.
    pub fn from_state(state: u64) -> Self {
        Rng(state)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n == 0` gives 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo).saturating_add(1))
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && (self.next_u64() >> 11) as f64 / ((1u64 << 53) as f64) < p
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// A lowercase alphanumeric string of length `n` from the alphabet of Kubernetes'
    /// generated names (`utilrand.String`: no vowels, no 0, 1, 3).
    pub fn alnum(&mut self, n: usize) -> String {
        const CHARS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..n)
            .map(|_| CHARS[self.below(CHARS.len() as u64) as usize] as char)
            .collect()
    }

    /// A UUID-shaped string (v4 layout).
    pub fn uuid(&mut self) -> String {
        let a = self.next_u64();
        let b = self.next_u64();
        let mut s = String::with_capacity(36);
        write_uuid(&mut s, a, b);
        s
    }
}

/// Appends the UUID-shaped string [`Rng::uuid`] makes of two draws `a`, `b`.
pub fn write_uuid(out: &mut String, a: u64, b: u64) {
    use std::fmt::Write as _;
    let _ = write!(
        out,
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | (b >> 48) & 0x3fff,
        b & 0xffff_ffff_ffff
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64's published first outputs for state 0 (Vigna's reference code): the
    /// sequence every recorded seed depends on.
    #[test]
    fn splitmix64_reference_sequence() {
        let mut r = Rng::from_state(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn draws_stay_in_range() {
        let mut r = Rng::new(7);
        for _ in 0..10_000 {
            assert!((3..=9).contains(&r.range(3, 9)));
            assert!(r.below(5) < 5);
        }
        assert_eq!(r.below(0), 0);
        // The whole range: no overflow.
        let _ = r.range(0, u64::MAX);
        let id = r.uuid();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
    }
}
