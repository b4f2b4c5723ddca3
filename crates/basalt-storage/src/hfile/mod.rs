//! The HFile format (being written).
