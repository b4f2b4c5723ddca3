//! The query matcher (being written).
