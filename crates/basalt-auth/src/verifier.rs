//! Checking credentials somewhere else: a gateway that keeps no users of its own asks its
//! backend server instead of a [`crate::UserStore`].
//!
//! An [`crate::Authenticator`] given a [`Verifier`] still parses, caches, limits, counts
//! and audits every attempt exactly as with a store; only the check itself (the step that
//! hashes a password or looks a token up) is the verifier's. Its refusals must be
//! [`AuthError::Unauthenticated`] (counted against the client's address) and its own
//! failures to check [`AuthError::Unavailable`] (not counted).

use crate::{AuthError, Credentials};
use basalt_api::Principal;
use std::future::Future;
use std::pin::Pin;

/// What a verification answers.
pub type Verified<'a> = Pin<Box<dyn Future<Output = Result<Principal, AuthError>> + Send + 'a>>;

/// Checks a client's credentials (a password or a token; never the cluster secret, which
/// the authenticator checks itself).
pub trait Verifier: Send + Sync {
    fn verify(&self, credentials: Credentials) -> Verified<'_>;
}
