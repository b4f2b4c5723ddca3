//! Users and tokens in the coordinator, beside the catalog: in process for standalone
//! (`DATA/coordinator/`), etcd for a cluster. Every change is one guarded transaction, so
//! two administrators racing cannot lose one another's change silently.

use crate::password::PasswordHash;
use crate::record::{check_name, token_key, user_key, TokenRecord, UserRecord, TOKENS, USERS};
use crate::{token, AuthError};
use basalt_coord::{Compare, Coordinator, Op, Txn};
use std::sync::Arc;
use std::time::Duration;

/// One user as `basalt user list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserInfo {
    pub name: String,
    pub superuser: bool,
    pub created_ms: u64,
}

/// A token just issued: its text (shown once) and when it expires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedToken {
    pub token: String,
    pub expires_ms: u64,
}

/// The longest a token may live.
pub const TOKEN_TTL_MAX: Duration = Duration::from_secs(366 * 24 * 3600);

#[derive(Debug, Clone)]
pub struct UserStore {
    pub(crate) coord: Arc<dyn Coordinator>,
}

impl UserStore {
    pub fn new(coord: Arc<dyn Coordinator>) -> Self {
        Self { coord }
    }

    /// Adds `name`; an existing user is refused (`passwd` changes a password).
    pub async fn add(
        &self,
        name: &str,
        password: &str,
        superuser: bool,
        iterations: u32,
        now_ms: u64,
    ) -> Result<(), AuthError> {
        check_name(name)?;
        let hash = PasswordHash::new(password, iterations)?;
        self.add_hashed(name, &hash, superuser, now_ms).await
    }

    /// As [`Self::add`] with the hash already derived (a server derives it on its blocking
    /// pool, not on a task of its runtime).
    pub async fn add_hashed(
        &self,
        name: &str,
        hash: &PasswordHash,
        superuser: bool,
        now_ms: u64,
    ) -> Result<(), AuthError> {
        check_name(name)?;
        let record = UserRecord {
            hash: hash.encode(),
            superuser,
            created_ms: now_ms,
        };
        let key = user_key(name);
        let txn = Txn {
            compares: vec![Compare::absent(key.clone())],
            success: vec![Op::put(key, record.encode())],
            failure: vec![],
        };
        match self.coord.txn(txn).await?.succeeded {
            true => Ok(()),
            false => Err(AuthError::invalid(format!(
                "user '{name}' exists (basalt user passwd changes a password)"
            ))),
        }
    }

    /// The record of `name`, if there is such a user.
    pub async fn get(&self, name: &str) -> Result<Option<UserRecord>, AuthError> {
        let key = user_key(name);
        match self.coord.get(&key).await? {
            Some(kv) => Ok(Some(UserRecord::decode(&kv.key, &kv.value)?)),
            None => Ok(None),
        }
    }

    /// Sets a new password for an existing user (its tokens stay valid).
    pub async fn passwd(
        &self,
        name: &str,
        password: &str,
        iterations: u32,
    ) -> Result<(), AuthError> {
        let hash = PasswordHash::new(password, iterations)?;
        self.passwd_hashed(name, &hash).await
    }

    /// As [`Self::passwd`] with the hash already derived.
    pub async fn passwd_hashed(&self, name: &str, hash: &PasswordHash) -> Result<(), AuthError> {
        let key = user_key(name);
        let kv = self.coord.get(&key).await?.ok_or_else(|| no_user(name))?;
        let mut record = UserRecord::decode(&kv.key, &kv.value)?;
        record.hash = hash.encode();
        let txn = Txn {
            compares: vec![Compare::mod_revision(key.clone(), kv.mod_revision)],
            success: vec![Op::put(key, record.encode())],
            failure: vec![],
        };
        match self.coord.txn(txn).await?.succeeded {
            true => Ok(()),
            false => Err(AuthError::invalid(format!(
                "user '{name}' changed meanwhile; try again"
            ))),
        }
    }

    /// Removes `name` and every token issued to it.
    pub async fn remove(&self, name: &str) -> Result<(), AuthError> {
        let key = user_key(name);
        let kv = self.coord.get(&key).await?.ok_or_else(|| no_user(name))?;
        let mut success = vec![Op::delete(key.clone())];
        for (digest, record) in self.tokens().await? {
            if record.user == name {
                success.push(Op::delete(token_key(&digest)));
            }
        }
        let txn = Txn {
            compares: vec![Compare::mod_revision(key, kv.mod_revision)],
            success,
            failure: vec![],
        };
        match self.coord.txn(txn).await?.succeeded {
            true => Ok(()),
            false => Err(AuthError::invalid(format!(
                "user '{name}' changed meanwhile; try again"
            ))),
        }
    }

    /// Every user, by name.
    pub async fn list(&self) -> Result<Vec<UserInfo>, AuthError> {
        let listing = self.coord.list(USERS.as_bytes()).await?;
        let mut users = Vec::with_capacity(listing.kvs.len());
        for kv in listing.kvs {
            let record = UserRecord::decode(&kv.key, &kv.value)?;
            let name = basalt_coord::layout::name_under(&kv.key, USERS).unwrap_or_default();
            users.push(UserInfo {
                name: name.to_string(),
                superuser: record.superuser,
                created_ms: record.created_ms,
            });
        }
        Ok(users)
    }

    /// Issues a token for an existing user, valid for `ttl` from `now_ms`.
    pub async fn issue_token(
        &self,
        name: &str,
        ttl: Duration,
        now_ms: u64,
    ) -> Result<IssuedToken, AuthError> {
        if ttl.is_zero() || ttl > TOKEN_TTL_MAX {
            return Err(AuthError::invalid(format!(
                "a token's ttl must be more than 0 and at most {} days",
                TOKEN_TTL_MAX.as_secs() / 86_400
            )));
        }
        let user = user_key(name);
        let kv = self.coord.get(&user).await?.ok_or_else(|| no_user(name))?;
        let text = token::generate()?;
        let expires_ms = now_ms.saturating_add(ttl.as_millis() as u64);
        let record = TokenRecord {
            user: name.to_string(),
            issued_ms: now_ms,
            expires_ms,
        };
        let txn = Txn {
            // The user must still exist when its token is written.
            compares: vec![Compare::create_revision(user, kv.create_revision)],
            success: vec![Op::put(token_key(&token::digest(&text)), record.encode())],
            failure: vec![],
        };
        match self.coord.txn(txn).await?.succeeded {
            true => Ok(IssuedToken {
                token: text,
                expires_ms,
            }),
            false => Err(no_user(name)),
        }
    }

    /// The record of the token whose text is `token`, if one was issued and not revoked.
    pub async fn token(&self, token: &str) -> Result<Option<TokenRecord>, AuthError> {
        let key = token_key(&token::digest(token));
        match self.coord.get(&key).await? {
            Some(kv) => Ok(Some(TokenRecord::decode(&kv.key, &kv.value)?)),
            None => Ok(None),
        }
    }

    /// Revokes every token of `name`; how many there were.
    pub async fn revoke_tokens(&self, name: &str) -> Result<usize, AuthError> {
        let ops: Vec<Op> = self
            .tokens()
            .await?
            .into_iter()
            .filter(|(_, record)| record.user == name)
            .map(|(digest, _)| Op::delete(token_key(&digest)))
            .collect();
        let revoked = ops.len();
        if revoked > 0 {
            let txn = Txn {
                compares: vec![],
                success: ops,
                failure: vec![],
            };
            self.coord.txn(txn).await?;
        }
        Ok(revoked)
    }

    async fn tokens(&self) -> Result<Vec<(String, TokenRecord)>, AuthError> {
        let listing = self.coord.list(TOKENS.as_bytes()).await?;
        listing
            .kvs
            .into_iter()
            .map(|kv| {
                let digest = basalt_coord::layout::name_under(&kv.key, TOKENS)
                    .unwrap_or_default()
                    .to_string();
                Ok((digest, TokenRecord::decode(&kv.key, &kv.value)?))
            })
            .collect()
    }
}

pub(crate) fn no_user(name: &str) -> AuthError {
    AuthError::invalid(format!("no user '{name}'"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::password::ITERATIONS_MIN;
    use basalt_coord::LocalCoordinator;

    fn store() -> UserStore {
        UserStore::new(Arc::new(LocalCoordinator::new()))
    }

    #[tokio::test]
    async fn users_round_trip_and_duplicates_are_refused() {
        let s = store();
        s.add("alice", "pw1", true, ITERATIONS_MIN, 5)
            .await
            .expect("add");
        s.add("bob", "pw2", false, ITERATIONS_MIN, 6)
            .await
            .expect("add");
        let err = s
            .add("alice", "x", false, ITERATIONS_MIN, 7)
            .await
            .expect_err("dup");
        assert!(err.to_string().contains("exists"), "{err}");
        let names: Vec<_> = s
            .list()
            .await
            .expect("list")
            .into_iter()
            .map(|u| (u.name, u.superuser))
            .collect();
        assert_eq!(names, [("alice".into(), true), ("bob".into(), false)]);
        s.passwd("bob", "pw3", ITERATIONS_MIN)
            .await
            .expect("passwd");
        let bob = s.get("bob").await.expect("get").expect("bob");
        assert!(bob.password().expect("hash").verify("pw3"));
        assert!(s.passwd("carol", "x", ITERATIONS_MIN).await.is_err());
        s.remove("bob").await.expect("remove");
        assert!(s.get("bob").await.expect("get").is_none());
        assert!(s.remove("bob").await.is_err());
    }

    #[tokio::test]
    async fn tokens_are_stored_hashed_and_die_with_their_user() {
        let s = store();
        s.add("alice", "pw", false, ITERATIONS_MIN, 0)
            .await
            .expect("add");
        let t = s
            .issue_token("alice", Duration::from_secs(60), 1_000)
            .await
            .expect("token");
        assert_eq!(t.expires_ms, 61_000);
        let record = s.token(&t.token).await.expect("lookup").expect("issued");
        assert_eq!(record.user, "alice");
        assert!(!record.expired(60_999));
        assert!(record.expired(61_000));
        assert!(s.token("bst_forged").await.expect("lookup").is_none());
        assert!(s
            .issue_token("nobody", Duration::from_secs(1), 0)
            .await
            .is_err());
        assert!(s.issue_token("alice", Duration::ZERO, 0).await.is_err());
        s.remove("alice").await.expect("remove");
        assert!(s.token(&t.token).await.expect("lookup").is_none());
    }
}
