//! A tiny seeded PRNG (SplitMix64): every run with the same `--seed` draws the same keys.
//!
//! Each client derives its own stream from the run's seed and its index, so clients never
//! draw the same sequence and a run is repeatable whatever the thread scheduling.

#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The stream of client `index` under the run's `seed`.
    pub fn for_client(seed: u64, index: u32) -> Self {
        let mut mixer =
            Self::new(seed ^ (u64::from(index) + 1).wrapping_mul(0xA24B_AED4_963E_E407));
        Self::new(mixer.next_u64())
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[0, bound)`; `bound` must be positive.
    pub fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0, "below(0) has no values");
        // Lemire's multiply-shift: unbiased enough for benchmarks (bias < bound / 2^64).
        ((u128::from(self.next_u64()) * u128::from(bound)) >> 64) as u64
    }

    /// `len` random printable bytes (`a`..`z`), like PE's generated values: each draw
    /// gives eight letters, its base-26 digits lowest first.
    pub fn letters(&mut self, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        for chunk in out.chunks_mut(8) {
            let letters = eight_letters(self.next_u64());
            chunk.copy_from_slice(&letters[..chunk.len()]);
        }
        out
    }
}

/// The letters of two base-26 digits `d0 + 26 * d1`, for every value below 26².
const LETTER_PAIRS: [[u8; 2]; 676] = {
    let mut pairs = [[0u8; 2]; 676];
    let mut i = 0;
    while i < 676 {
        pairs[i] = [b'a' + (i % 26) as u8, b'a' + (i / 26) as u8];
        i += 1;
    }
    pairs
};

/// The lowest eight base-26 digits of `word` as letters, lowest first: two independent
/// halves of four digits, two at a time (the bulk-load phases draw 1 KB per record inside
/// their timing, so this is kept short).
fn eight_letters(word: u64) -> [u8; 8] {
    const FOUR_DIGITS: u64 = 26 * 26 * 26 * 26;
    let low = (word % FOUR_DIGITS) as usize;
    let high = (word / FOUR_DIGITS % FOUR_DIGITS) as usize;
    let [a, b] = LETTER_PAIRS[low % 676];
    let [c, d] = LETTER_PAIRS[low / 676];
    let [e, f] = LETTER_PAIRS[high % 676];
    let [g, h] = LETTER_PAIRS[high / 676];
    [a, b, c, d, e, f, g, h]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_clients_differ() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut c0 = Rng::for_client(7, 0);
        let mut c1 = Rng::for_client(7, 1);
        assert_ne!(c0.next_u64(), c1.next_u64());
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = Rng::new(1);
        let mut seen = [false; 10];
        for _ in 0..1000 {
            let v = rng.below(10);
            assert!(v < 10);
            seen[v as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
        let f = rng.next_f64();
        assert!((0.0..1.0).contains(&f));
    }

    #[test]
    fn letters_are_the_base_26_digits_of_each_draw() {
        let mut draws = Rng::new(5);
        let words = [draws.next_u64(), draws.next_u64()];
        let expected: Vec<u8> = words
            .iter()
            .flat_map(|&w| (0..8).map(move |i| b'a' + (w / 26u64.pow(i) % 26) as u8))
            .take(11)
            .collect();
        assert_eq!(Rng::new(5).letters(11), expected);
    }

    #[test]
    fn letters_have_the_length_asked() {
        let mut rng = Rng::new(3);
        for len in [0, 1, 7, 8, 9, 100] {
            let v = rng.letters(len);
            assert_eq!(v.len(), len);
            assert!(v.iter().all(u8::is_ascii_lowercase));
        }
    }
}
