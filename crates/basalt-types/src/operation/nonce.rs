//! Operation nonces: the name a client gives one increment, append or check-and-mutate so
//! that a retry of it is recognised instead of applied twice.

/// `(group, nonce)`: a random group per client connection and a counter within it, as
/// HBase's `nonceGroup` and `nonce`. A nonce of 0 means "none" on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Nonce {
    pub group: u64,
    pub nonce: u64,
}

impl Nonce {
    /// The nonce a request carries, or `None` when it carries none (nonce 0).
    pub fn from_wire(group: u64, nonce: u64) -> Option<Self> {
        (nonce != 0).then_some(Self { group, nonce })
    }
}

impl std::fmt::Display for Nonce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.group, self.nonce)
    }
}
