//! Recycled buffers for data blocks read from disk.
//!
//! A block read needs a buffer of the block's size, and safe code can only read into
//! initialised memory: a fresh buffer is zeroed first (a 64 KiB `memset`, or the kernel
//! zeroing fresh pages), only for the read to overwrite every byte. A block's buffer lives
//! as long as the block does, in the cache and in the scanners that hold it; when the last
//! holder lets go, the buffer comes back here, already initialised, for the next read of a
//! similar size. A scan through data larger than the cache (each block read evicting
//! another) then reads into memory that is neither zeroed nor freshly mapped.
//!
//! | buffer wanted | kept buffer used when | otherwise |
//! |---------------|-----------------------|-----------|
//! | `len` bytes   | `len <= capacity <= len + len / 8` (the smallest such) | a new zeroed buffer |
//!
//! The pool keeps at most [`KEPT_MAX_BYTES`] of buffers; more coming back are freed. A
//! block in the cache is weighed by its length, so the eighth of slack a recycled buffer
//! may carry is memory the cache does not count.

use bytes::Bytes;
use parking_lot::Mutex;
use std::sync::Arc;

/// Bytes of buffers kept for reuse, at most (128 blocks of 64 KiB).
pub const KEPT_MAX_BYTES: usize = 8 << 20;

/// A pool of initialised block buffers; see the module documentation.
#[derive(Debug, Default)]
pub struct BlockBuffers {
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    buffers: Vec<Vec<u8>>,
    bytes: usize,
}

/// A buffer on loan to a block: returned to its pool when the block's last holder drops it.
struct Loan {
    buf: Vec<u8>,
    pool: Arc<BlockBuffers>,
}

impl AsRef<[u8]> for Loan {
    fn as_ref(&self) -> &[u8] {
        &self.buf
    }
}

impl Drop for Loan {
    fn drop(&mut self) {
        self.pool.give_back(std::mem::take(&mut self.buf));
    }
}

impl BlockBuffers {
    /// A buffer of exactly `len` initialised bytes (their values are whatever the last
    /// block left: the caller overwrites them).
    pub fn take(&self, len: usize) -> Vec<u8> {
        let recycled = {
            let mut kept = self.kept.lock();
            let fits = |b: &Vec<u8>| b.capacity() >= len && b.capacity() - len <= len / 8;
            let best = kept
                .buffers
                .iter()
                .enumerate()
                .filter(|(_, b)| fits(b))
                .min_by_key(|(_, b)| b.capacity())
                .map(|(i, _)| i);
            best.map(|i| {
                let buf = kept.buffers.swap_remove(i);
                kept.bytes -= buf.capacity();
                buf
            })
        };
        match recycled {
            Some(mut buf) => {
                // Kept buffers are initialised to their capacity: this only truncates.
                buf.resize(len, 0);
                buf
            }
            None => vec![0; len],
        }
    }

    /// `buf` as shared bytes that come back to this pool once every clone is dropped.
    pub fn lend(self: &Arc<Self>, buf: Vec<u8>) -> Bytes {
        Bytes::from_owner(Loan {
            buf,
            pool: self.clone(),
        })
    }

    /// Keeps `buf` for a later [`Self::take`], initialised to its whole capacity.
    pub fn give_back(&self, mut buf: Vec<u8>) {
        if buf.capacity() == 0 {
            return;
        }
        let mut kept = self.kept.lock();
        if kept.bytes + buf.capacity() <= KEPT_MAX_BYTES {
            // Zeroes only what was never written (nothing, for a buffer from `take`).
            buf.resize(buf.capacity(), 0);
            kept.bytes += buf.capacity();
            kept.buffers.push(buf);
        }
    }

    /// Buffers kept now.
    pub fn kept(&self) -> usize {
        self.kept.lock().buffers.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lent_buffer_comes_back_when_its_last_clone_drops_and_is_reused() {
        let pool = Arc::new(BlockBuffers::default());
        let mut buf = pool.take(1000);
        assert_eq!(buf.len(), 1000);
        buf[999] = 7;
        let address = buf.as_ptr();
        let bytes = pool.lend(buf);
        let part = bytes.slice(10..20);
        drop(bytes);
        assert_eq!(pool.kept(), 0, "a slice still holds it");
        drop(part);
        assert_eq!(pool.kept(), 1);
        // A slightly smaller block reuses it, with its old bytes rather than zeroes.
        let again = pool.take(900);
        assert_eq!((again.as_ptr(), again.len()), (address, 900));
        assert_eq!(pool.kept(), 0);
    }

    #[test]
    fn sizes_far_from_a_kept_buffer_get_new_ones() {
        let pool = Arc::new(BlockBuffers::default());
        pool.give_back(vec![1; 1000]);
        assert!(
            pool.take(1001).iter().all(|b| *b == 0),
            "too small: a new one"
        );
        assert_eq!(pool.take(500).len(), 500, "far too large: a new one");
        assert_eq!(pool.kept(), 1);
        assert_eq!(pool.take(900).len(), 900, "within an eighth: reused");
        assert_eq!(pool.kept(), 0);
    }

    #[test]
    fn the_pool_keeps_a_bounded_number_of_bytes() {
        let pool = BlockBuffers::default();
        let size = KEPT_MAX_BYTES / 10;
        for _ in 0..15 {
            pool.give_back(vec![0; size]);
        }
        assert_eq!(pool.kept(), 10);
        drop(pool.take(size));
        pool.give_back(vec![0; size]);
        assert_eq!(pool.kept(), 10, "room for one taken out, no more");
    }
}
