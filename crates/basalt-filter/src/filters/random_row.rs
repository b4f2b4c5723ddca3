//! `RandomRowFilter(chance)`: each row passes with probability `chance` (below 0 never,
//! above 1 always). Not in the filter language. The random sequence is seeded by the spec
//! so that tests are repeatable.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug)]
pub struct RandomRowFilter {
    chance: f32,
    state: u64,
    filter_out_row: bool,
}

impl RandomRowFilter {
    pub fn new(chance: f32, seed: u64) -> Self {
        Self {
            chance,
            state: seed,
            filter_out_row: false,
        }
    }

    /// splitmix64, reduced to a float in [0, 1).
    fn next_f32(&mut self) -> f32 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let top24 = u32::try_from(z >> 40).expect("a 64-bit value shifted by 40 fits 24 bits");
        // 24-bit integers are exact in f32.
        top24 as f32 / 16_777_216.0
    }
}

impl Filter for RandomRowFilter {
    fn reset(&mut self) {
        self.filter_out_row = false;
    }

    fn filter_row_key(&mut self, _first: &Cell) -> bool {
        self.filter_out_row = if self.chance < 0.0 {
            true
        } else if self.chance > 1.0 {
            false
        } else {
            self.next_f32() >= self.chance
        };
        self.filter_out_row
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        if self.filter_out_row {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out_row
    }
}
