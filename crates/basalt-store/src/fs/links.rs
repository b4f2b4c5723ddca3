//! Store files shared by name on an object store, where there are no hard links: HBase's
//! archive and cleaner, with a back-reference per link so that nothing is deleted while
//! a snapshot or a clone names it.
//!
//! ```text
//! <K>                       a link: "BASALT-LINK 1\n<T>\n", a second name of the file at <T>
//! links/<T>/<h>             a back-reference: link <K> names <T> (h: 16 hex digits of a hash of K; holds K)
//! links/<T>/.removing       a removal or the cleaner at work on <T> (put-if-absent)
//! archive/<T>               the bytes of <T> once its own name was removed while links named it
//! ```
//!
//! Only store files (`*.hfile`) are shared. What each operation does with them:
//!
//! | operation | what happens |
//! |-----------|--------------|
//! | `hard_link(F, K)` | T = F, or F's target if F is a link; back-reference written, then checked that T (or `archive/T`) is there and no removal is at work; then the link |
//! | `open(K)` | a link opens `T`, or `archive/T` once T's name is gone |
//! | remove a link | the link, then its back-reference |
//! | remove a file T | `.removing` put; back-references listed: none → T deleted; some → T copied to `archive/T`, then deleted; `.removing` deleted |
//! | `rename` of a file T with back-references | T copied to `archive/T` first |
//! | `rename` of a link | its back-reference moves with it (new one first, then the old one deleted) |
//! | the cleaner | for each `archive/T`: `.removing` put (taken: skipped); no back-reference → `archive/T` deleted (logged) |
//!
//! **Why it is safe.** A link writes its back-reference *before* it checks that its
//! target is there and that no `.removing` is; a removal writes `.removing` *before* it
//! lists the back-references. So of a racing link and removal, either the removal sees
//! the back-reference (and archives the bytes), or the link sees `.removing` or the
//! missing file (and fails, naming it; a snapshot reads its region again).
//!
//! What leaks rather than breaks: a crash between removing a link and its back-reference
//! (or mid-rename) leaves a back-reference that keeps `archive/T` (never a loss).

use super::keys;
use super::write::block;
use super::StoreFs;
use crate::store::{Created, ListMode};
use crate::ObjectInfo;
use bytes::Bytes;
use std::io;

const MAGIC: &[u8] = b"BASALT-LINK 1\n";
/// Objects up to this size are read to tell a link from a file.
const LINK_BYTES_MAX: u64 = 4096;
/// The folder archived files are kept under.
pub const ARCHIVE: &str = "archive";
/// The folder of back-references.
pub const LINKS: &str = "links";
const REMOVING: &str = ".removing";

/// Whether the object at `key` can be shared (a store file, not under the archive).
pub fn shareable(key: &str) -> bool {
    key.ends_with(".hfile")
        && !key.starts_with(&format!("{ARCHIVE}/"))
        && !key.starts_with(&format!("{LINKS}/"))
}

pub fn encode_link(target: &str) -> Bytes {
    Bytes::from([MAGIC, target.as_bytes(), b"\n"].concat())
}

/// The target a link's bytes name, `None` for any other bytes.
pub fn parse_link(bytes: &[u8]) -> Option<String> {
    let rest = bytes.strip_prefix(MAGIC)?.strip_suffix(b"\n")?;
    let target = std::str::from_utf8(rest).ok()?;
    (!target.is_empty() && !target.contains('\n')).then(|| target.to_owned())
}

pub fn archive_key(target: &str) -> String {
    keys::join(ARCHIVE, target)
}

fn refs_folder(target: &str) -> String {
    keys::join(LINKS, target)
}

fn removing_key(target: &str) -> String {
    keys::join(&refs_folder(target), REMOVING)
}

/// The back-reference of link `link` to `target`: FNV-1a of the link's key.
pub fn ref_key(target: &str, link: &str) -> String {
    let hash = link.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    keys::join(&refs_folder(target), &format!("{hash:016x}"))
}

/// What a removal of a shared file does, given the back-references it found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    Delete,
    /// Links name it: its bytes go to the archive.
    Archive,
}

/// The decision: `refs` are the names listed under the file's back-reference folder.
pub fn decide_removal(refs: &[String]) -> Removal {
    match refs.iter().any(|r| r != REMOVING) {
        true => Removal::Archive,
        false => Removal::Delete,
    }
}

impl StoreFs {
    fn get_all(&self, key: &str, size: u64) -> io::Result<Bytes> {
        let (store, key) = (self.store.clone(), key.to_owned());
        block(async move { store.get_range(&key, 0..size, None).await })
    }

    fn put_bytes(&self, key: &str, bytes: Bytes) -> io::Result<()> {
        let (store, key) = (self.store.clone(), key.to_owned());
        block(async move { store.put(&key, bytes).await })
    }

    fn put_new(&self, key: &str) -> io::Result<Created> {
        let (store, key) = (self.store.clone(), key.to_owned());
        block(async move { store.put_if_absent(&key, Bytes::new()).await })
    }

    fn copy_object(&self, from: &str, to: &str) -> io::Result<()> {
        let (store, from, to) = (self.store.clone(), from.to_owned(), to.to_owned());
        block(async move { store.copy(&from, &to).await })
    }

    /// The names under `target`'s back-reference folder.
    fn refs_of(&self, target: &str) -> io::Result<Vec<String>> {
        let listed = self.list_under(&refs_folder(target), ListMode::Children)?;
        Ok(listed
            .objects
            .iter()
            .map(|o| keys::name_of(&o.key).to_owned())
            .collect())
    }

    /// The target of the object at `key` (of `size` bytes) if it is a link.
    pub(super) fn link_target(&self, key: &str, size: u64) -> io::Result<Option<String>> {
        if !shareable(key) || size > LINK_BYTES_MAX || size < MAGIC.len() as u64 {
            return Ok(None);
        }
        Ok(parse_link(&self.get_all(key, size)?))
    }

    /// The object that holds `key`'s bytes: itself, or a link's target (or its archive).
    pub(super) fn resolve(&self, key: &str) -> io::Result<Option<(String, ObjectInfo)>> {
        let Some(info) = self.head(key)? else {
            return Ok(None);
        };
        let Some(target) = self.link_target(key, info.size)? else {
            return Ok(Some((key.to_owned(), info)));
        };
        for candidate in [target.clone(), archive_key(&target)] {
            if let Some(info) = self.head(&candidate)? {
                return Ok(Some((candidate, info)));
            }
        }
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "{}: link {key} names {target}, which is neither there nor in the archive",
                self.store.url()
            ),
        ))
    }

    /// `hard_link` on a store: a link object with its back-reference.
    pub(super) fn link(&self, from: &str, to: &str) -> io::Result<()> {
        let missing = |what: String| io::Error::new(io::ErrorKind::NotFound, what);
        let Some(info) = self.head(from)? else {
            return Err(missing(format!(
                "{}: {from} does not exist",
                self.store.url()
            )));
        };
        let target = self
            .link_target(from, info.size)?
            .unwrap_or_else(|| from.to_owned());
        let back = ref_key(&target, to);
        self.put_bytes(&back, Bytes::from(to.to_owned()))?;
        let busy = self.head(&removing_key(&target))?.is_some();
        let there = self.head(&target)?.is_some() || self.head(&archive_key(&target))?.is_some();
        if busy || !there {
            self.delete(&back)?;
            let why = if busy { "is being removed" } else { "is gone" };
            return Err(missing(format!(
                "{}: cannot link {target} as {to}: it {why}",
                self.store.url()
            )));
        }
        self.put_bytes(to, encode_link(&target))
    }

    /// Removes the shareable object at `key` (`size` bytes): a link with its
    /// back-reference, a file into the archive while links name it.
    pub(super) fn remove_shared(&self, key: &str, size: u64) -> io::Result<()> {
        if let Some(target) = self.link_target(key, size)? {
            self.delete(key)?;
            return self.delete(&ref_key(&target, key));
        }
        let marker = removing_key(key);
        self.put_new(&marker)?;
        if decide_removal(&self.refs_of(key)?) == Removal::Archive {
            self.copy_object(key, &archive_key(key))?;
            tracing::info!(
                url = self.store.url(),
                file = key,
                "a snapshot or a clone names this file: kept in the archive"
            );
        }
        self.delete(key)?;
        self.delete(&marker)
    }

    /// Before a rename moves the object at `from` (`size` bytes) to `to`: a link's
    /// back-reference moves with it (the new one written first); a file links name is
    /// copied to the archive.
    pub(super) fn before_move(&self, from: &str, to: &str, size: u64) -> io::Result<()> {
        if !shareable(from) {
            return Ok(());
        }
        if let Some(target) = self.link_target(from, size)? {
            self.put_bytes(&ref_key(&target, to), Bytes::from(to.to_owned()))?;
            return self.delete(&ref_key(&target, from));
        }
        if decide_removal(&self.refs_of(from)?) == Removal::Archive {
            self.copy_object(from, &archive_key(from))?;
        }
        Ok(())
    }

    /// The cleaner: deletes every archived file no link names any more (each logged);
    /// returns how many went.
    pub(super) fn clean(&self) -> io::Result<usize> {
        let listed = self.list_under(ARCHIVE, ListMode::Recursive)?;
        let mut removed = 0;
        for object in listed.objects {
            let Some(target) = object.key.strip_prefix(&format!("{ARCHIVE}/")) else {
                continue;
            };
            let marker = removing_key(target);
            if self.put_new(&marker)? == Created::AlreadyExists {
                continue;
            }
            if decide_removal(&self.refs_of(target)?) == Removal::Delete {
                self.delete(&object.key)?;
                tracing::info!(url = self.store.url(), file = %object.key, bytes = object.size,
                    "archive cleaner: no snapshot or clone names this file any more; deleted");
                removed += 1;
            }
            self.delete(&marker)?;
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_reads_back_and_other_bytes_are_not_links() {
        let bytes = encode_link("data/t/r/f/00000000000000000001.hfile");
        assert_eq!(
            parse_link(&bytes).as_deref(),
            Some("data/t/r/f/00000000000000000001.hfile")
        );
        assert_eq!(parse_link(b"BASALT-LINK 1\n\n"), None);
        assert_eq!(parse_link(b"DATABLK*"), None);
        assert_eq!(parse_link(&bytes[..bytes.len() - 1]), None);
    }

    #[test]
    fn only_store_files_outside_the_archive_are_shared() {
        assert!(shareable("data/t/r/f/1.hfile"));
        assert!(!shareable("data/t/r/.manifest"));
        assert!(!shareable("archive/data/t/r/f/1.hfile"));
        assert!(!shareable("links/data/t/r/f/1.hfile/0123"));
    }

    #[test]
    fn a_file_is_archived_only_while_a_link_names_it() {
        assert_eq!(decide_removal(&[]), Removal::Delete);
        assert_eq!(decide_removal(&[REMOVING.into()]), Removal::Delete);
        assert_eq!(
            decide_removal(&[REMOVING.into(), "00ff".into()]),
            Removal::Archive
        );
        assert_eq!(decide_removal(&["00ff".into()]), Removal::Archive);
    }

    #[test]
    fn back_references_are_per_link_under_the_target() {
        let a = ref_key("t/1.hfile", "snapshots/s/r/f/1.hfile");
        let b = ref_key("t/1.hfile", "data/clone/r/f/1.hfile");
        assert!(a.starts_with("links/t/1.hfile/") && b.starts_with("links/t/1.hfile/"));
        assert_ne!(a, b);
        assert_eq!(a, ref_key("t/1.hfile", "snapshots/s/r/f/1.hfile"));
    }
}
