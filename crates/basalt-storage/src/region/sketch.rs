//! The space-saving top-k sketch (Metwally, Agrawal and El Abbadi): at most `capacity`
//! counters; an unseen key takes over the smallest counter and inherits its count, so any
//! key seen more than `n / capacity` times out of `n` is certain to be held, and a held
//! key's count overestimates it by at most the count it inherited.

use bytes::Bytes;

#[derive(Debug, Default, Clone)]
pub struct SpaceSaving {
    capacity: usize,
    /// (key, count), unordered; at most `capacity`.
    counters: Vec<(Bytes, u64)>,
}

impl SpaceSaving {
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            counters: Vec::with_capacity(capacity),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn add(&mut self, key: &Bytes) {
        if let Some(c) = self.counters.iter_mut().find(|(k, _)| k == key) {
            c.1 += 1;
        } else if self.counters.len() < self.capacity {
            self.counters.push((key.clone(), 1));
        } else if let Some(smallest) = self.counters.iter_mut().min_by_key(|(_, n)| *n) {
            *smallest = (key.clone(), smallest.1 + 1);
        }
    }

    /// The `n` largest counters, largest first (ties by key).
    pub fn top(&self, n: usize) -> Vec<(Bytes, u64)> {
        let mut top = self.counters.clone();
        top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        top.truncate(n);
        top
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frequent_key_survives_many_rare_ones() {
        let mut sketch = SpaceSaving::new(4);
        for i in 0..1000u32 {
            sketch.add(&Bytes::from(format!("rare{i}")));
            if i % 3 == 0 {
                sketch.add(&Bytes::from_static(b"hot"));
            }
        }
        let top = sketch.top(1);
        assert_eq!(top[0].0, Bytes::from_static(b"hot"));
        assert!(top[0].1 >= 334);
    }

    #[test]
    fn counts_are_exact_below_capacity() {
        let mut sketch = SpaceSaving::new(8);
        for key in ["a", "b", "a", "c", "a", "b"] {
            sketch.add(&Bytes::from(key));
        }
        assert_eq!(
            sketch.top(2),
            vec![(Bytes::from("a"), 3), (Bytes::from("b"), 2)]
        );
    }
}
