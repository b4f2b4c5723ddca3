//! Byte helpers shared by the journal and the snapshot: big-endian integers, length-
//! prefixed byte strings, one key's bookkeeping, and a reader that names the offset of
//! whatever it cannot read (never panics, never allocates more than the input holds).
//!
//! One key, as both files store it:
//!
//! ```text
//! | key_len u32 | key | value_len u32 | value | create_revision i64 | mod_revision i64 |
//! | version i64 | lease i64 |
//! ```

use crate::KeyValue;

/// The highest revision a file may name: far above any real store, far enough below
/// `i64::MAX` that counting on from it cannot overflow.
pub(crate) const REVISION_MAX: i64 = 1 << 62;

/// Why bytes could not be read: where (from the start of the file) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Damage {
    pub offset: u64,
    pub cause: String,
}

impl Damage {
    pub(crate) fn new(offset: u64, cause: impl Into<String>) -> Self {
        Self {
            offset,
            cause: cause.into(),
        }
    }
}

pub(crate) fn put_bytes(buf: &mut Vec<u8>, bytes: &[u8]) {
    // Keys and values are far below 4 GiB: the coordinator refuses larger transactions
    // before they reach a file.
    buf.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_be_bytes());
    buf.extend_from_slice(bytes);
}

pub(crate) fn put_kv(buf: &mut Vec<u8>, kv: &KeyValue) {
    put_bytes(buf, &kv.key);
    put_bytes(buf, &kv.value);
    for field in [kv.create_revision, kv.mod_revision, kv.version, kv.lease] {
        buf.extend_from_slice(&field.to_be_bytes());
    }
}

/// Reads from a slice that starts `base` bytes into its file, so errors name file offsets.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8], base: u64) -> Self {
        Self {
            bytes,
            pos: 0,
            base,
        }
    }

    /// The file offset of the next byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    pub(crate) fn take(&mut self, len: usize, what: &str) -> Result<&'a [u8], Damage> {
        if self.remaining() < len {
            return Err(Damage::new(
                self.offset(),
                format!("{what} needs {len} bytes, {} remain", self.remaining()),
            ));
        }
        let slice = &self.bytes[self.pos..self.pos + len];
        self.pos += len;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], Damage> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8, Damage> {
        Ok(self.array::<1>(what)?[0])
    }

    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, Damage> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }

    pub(crate) fn u64(&mut self, what: &str) -> Result<u64, Damage> {
        Ok(u64::from_be_bytes(self.array(what)?))
    }

    pub(crate) fn i64(&mut self, what: &str) -> Result<i64, Damage> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }

    /// A store revision: 1 ..= [`REVISION_MAX`].
    pub(crate) fn revision(&mut self, what: &str) -> Result<i64, Damage> {
        let at = self.offset();
        let revision = self.i64(what)?;
        if !(1..=REVISION_MAX).contains(&revision) {
            return Err(Damage::new(
                at,
                format!("{what} {revision} is out of range"),
            ));
        }
        Ok(revision)
    }

    pub(crate) fn bytes(&mut self, what: &str) -> Result<Vec<u8>, Damage> {
        let len = self.u32(what)? as usize;
        Ok(self.take(len, what)?.to_vec())
    }

    pub(crate) fn kv(&mut self) -> Result<KeyValue, Damage> {
        let at = self.offset();
        let kv = KeyValue {
            key: self.bytes("key")?,
            value: self.bytes("value")?,
            create_revision: self.revision("create revision")?,
            mod_revision: self.revision("mod revision")?,
            version: self.revision("version")?,
            lease: self.i64("lease")?,
        };
        let sane = kv.create_revision >= 1
            && kv.mod_revision >= kv.create_revision
            && kv.version >= 1
            && kv.lease >= 0;
        if !sane {
            return Err(Damage::new(
                at,
                format!(
                    "impossible key bookkeeping: create {} mod {} version {} lease {}",
                    kv.create_revision, kv.mod_revision, kv.version, kv.lease
                ),
            ));
        }
        Ok(kv)
    }
}
