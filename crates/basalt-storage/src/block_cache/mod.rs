//! The block cache (being written).
