//! The fault-injection suite's parts: the worlds it damages, where and how it damages
//! them, and how it reads the outcome back.
//!
//! # Layout
//! - [`world`]: two pristine data folders built once per run: `clean` (everything
//!   flushed, closed cleanly) and `crashed` (the newest log segment holds twenty
//!   acknowledged puts that no file holds, then the database is dropped without closing).
//! - [`damage`]: the file kinds and byte positions ([`Target`]) and what is done there
//!   ([`Damage`]: a bit flip, a truncation, a zeroed tail, appended garbage).
//! - [`outcome`]: reopens a damaged copy and classifies every region: fully served with
//!   the model's values, failed as a whole, or a designed torn-tail loss; anything else
//!   (a silently wrong value, a partly served region, a deleted store file) fails the case.
#![allow(dead_code)]

pub mod damage;
pub mod outcome;
pub mod world;
