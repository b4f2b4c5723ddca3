//! The bootstrap token in the coordinator: made at a master's activation, checked before
//! the unauthenticated `AddUser` runs, and consumed by that add in the same transaction
//! that creates the superuser.

use super::{decide, BootstrapRecord, Decision, KEY, TTL};
use crate::password::{constant_time_eq, PasswordHash};
use crate::record::{check_name, user_key, UserRecord};
use crate::store::UserStore;
use crate::{token, AuthError};
use basalt_coord::{Compare, Op, Txn};

/// What [`UserStore::ensure_bootstrap`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ensured {
    /// A superuser exists; no token.
    NotNeeded,
    /// A superuser exists; a leftover token was deleted.
    Retired,
    /// A new token: print it, once.
    Issued { token: String, expires_ms: u64 },
    /// A live token was printed earlier (by this master or another).
    Pending(BootstrapRecord),
}

impl UserStore {
    /// Whether some stored user is a superuser.
    pub async fn has_superuser(&self) -> Result<bool, AuthError> {
        Ok(self.list().await?.iter().any(|u| u.superuser))
    }

    async fn bootstrap_record(&self) -> Result<Option<(BootstrapRecord, i64)>, AuthError> {
        match self.coord.get(KEY.as_bytes()).await? {
            Some(kv) => Ok(Some((BootstrapRecord::decode(&kv.value)?, kv.mod_revision))),
            None => Ok(None),
        }
    }

    /// At a master's activation (authentication required): makes a bootstrap token when
    /// no superuser exists and none is pending ([`decide`]); `by` names the master.
    pub async fn ensure_bootstrap(&self, by: &str, now_ms: u64) -> Result<Ensured, AuthError> {
        let superuser = self.has_superuser().await?;
        let found = self.bootstrap_record().await?;
        let compare = match &found {
            Some((_, revision)) => Compare::mod_revision(KEY, *revision),
            None => Compare::absent(KEY),
        };
        match decide(superuser, found.as_ref().map(|(r, _)| r), now_ms) {
            Decision::NotNeeded => Ok(Ensured::NotNeeded),
            Decision::Pending => Ok(match found {
                Some((record, _)) => Ensured::Pending(record),
                None => Ensured::NotNeeded,
            }),
            Decision::Retire => {
                let txn = Txn {
                    compares: vec![compare],
                    success: vec![Op::delete(KEY)],
                    failure: vec![],
                };
                self.coord.txn(txn).await?;
                Ok(Ensured::Retired)
            }
            Decision::Issue | Decision::Replace => {
                let text = token::generate()?;
                let record = BootstrapRecord {
                    digest: token::digest(&text),
                    issued_ms: now_ms,
                    expires_ms: now_ms.saturating_add(TTL.as_millis() as u64),
                    by: by.to_string(),
                };
                let txn = Txn {
                    compares: vec![compare],
                    success: vec![Op::put(KEY, record.encode())],
                    failure: vec![],
                };
                if self.coord.txn(txn).await?.succeeded {
                    return Ok(Ensured::Issued {
                        token: text,
                        expires_ms: record.expires_ms,
                    });
                }
                // Another master wrote one meanwhile: theirs is the one.
                match self.bootstrap_record().await? {
                    Some((theirs, _)) => Ok(Ensured::Pending(theirs)),
                    None => Ok(Ensured::NotNeeded),
                }
            }
        }
    }

    /// Whether `token` is the pending bootstrap token: its record's revision, or why not
    /// (an authentication failure, counted as a wrong password is).
    pub async fn check_bootstrap(&self, token: &str, now_ms: u64) -> Result<i64, AuthError> {
        let refused =
            |why: &str| AuthError::Unauthenticated(format!("bootstrap token refused: {why}"));
        if self.has_superuser().await? {
            return Err(refused(
                "a superuser exists, so users are added by superusers",
            ));
        }
        let Some((record, revision)) = self.bootstrap_record().await? else {
            return Err(refused("none is pending (it was used, or none was issued)"));
        };
        let digest = token::digest(token);
        if !constant_time_eq(digest.as_bytes(), record.digest.as_bytes()) {
            return Err(refused("wrong token"));
        }
        if record.expired(now_ms) {
            return Err(refused(
                "it expired; restart the master for a new one, or add the superuser with --data-dir (server stopped)",
            ));
        }
        Ok(revision)
    }

    /// Adds superuser `name` with the bootstrap `token`: the user is written and the token
    /// deleted in one transaction that compares the token still pending, so it works once.
    pub async fn add_with_bootstrap(
        &self,
        name: &str,
        hash: &PasswordHash,
        token: &str,
        now_ms: u64,
    ) -> Result<(), AuthError> {
        check_name(name)?;
        let revision = self.check_bootstrap(token, now_ms).await?;
        let record = UserRecord {
            hash: hash.encode(),
            superuser: true,
            created_ms: now_ms,
        };
        let key = user_key(name);
        let txn = Txn {
            compares: vec![
                Compare::mod_revision(KEY, revision),
                Compare::absent(key.clone()),
            ],
            success: vec![Op::put(key, record.encode()), Op::delete(KEY)],
            failure: vec![],
        };
        if self.coord.txn(txn).await?.succeeded {
            return Ok(());
        }
        match self.get(name).await? {
            Some(_) => Err(AuthError::invalid(format!("user '{name}' exists"))),
            None => Err(AuthError::Unauthenticated(
                "bootstrap token refused: it was used meanwhile".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::password::ITERATIONS_MIN;
    use basalt_coord::LocalCoordinator;
    use std::sync::Arc;

    fn hash() -> PasswordHash {
        PasswordHash::new("pw", ITERATIONS_MIN).expect("hash")
    }

    #[tokio::test]
    async fn a_bootstrap_token_makes_one_superuser_once() {
        let s = UserStore::new(Arc::new(LocalCoordinator::new()));
        let Ensured::Issued { token, expires_ms } =
            s.ensure_bootstrap("m:1", 1_000).await.expect("ensure")
        else {
            panic!("a fresh store issues a token");
        };
        assert_eq!(expires_ms, 1_000 + TTL.as_millis() as u64);
        // A second master (or a restart) sees the pending one and makes none.
        let again = s.ensure_bootstrap("m:2", 2_000).await.expect("ensure");
        assert!(
            matches!(again, Ensured::Pending(ref r) if r.by == "m:1"),
            "{again:?}"
        );
        let wrong = s
            .add_with_bootstrap("admin", &hash(), "bst_wrong", 3_000)
            .await;
        assert!(wrong
            .expect_err("wrong")
            .to_string()
            .contains("wrong token"));
        s.add_with_bootstrap("admin", &hash(), &token, 3_000)
            .await
            .expect("first use");
        assert!(s.get("admin").await.expect("get").expect("admin").superuser);
        let used = s.add_with_bootstrap("admin2", &hash(), &token, 3_000).await;
        assert!(used
            .expect_err("used")
            .to_string()
            .contains("superuser exists"));
        assert_eq!(
            s.ensure_bootstrap("m:1", 4_000).await.expect("ensure"),
            Ensured::NotNeeded
        );
    }

    #[tokio::test]
    async fn an_expired_token_is_refused_and_replaced() {
        let s = UserStore::new(Arc::new(LocalCoordinator::new()));
        let Ensured::Issued { token, expires_ms } =
            s.ensure_bootstrap("m:1", 0).await.expect("ensure")
        else {
            panic!("issued");
        };
        let late = s
            .add_with_bootstrap("admin", &hash(), &token, expires_ms)
            .await;
        assert!(late.expect_err("expired").to_string().contains("expired"));
        let renewed = s.ensure_bootstrap("m:1", expires_ms).await.expect("ensure");
        assert!(matches!(renewed, Ensured::Issued { token: ref t, .. } if *t != token));
    }

    #[tokio::test]
    async fn a_superuser_made_otherwise_retires_a_pending_token() {
        let s = UserStore::new(Arc::new(LocalCoordinator::new()));
        s.ensure_bootstrap("m:1", 0).await.expect("ensure");
        s.add("root", "pw", true, ITERATIONS_MIN, 0)
            .await
            .expect("add");
        assert_eq!(
            s.ensure_bootstrap("m:1", 1).await.expect("ensure"),
            Ensured::Retired
        );
        assert!(s.bootstrap_record().await.expect("get").is_none());
    }
}
