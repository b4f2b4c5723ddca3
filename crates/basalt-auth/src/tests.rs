//! The authenticator end to end over an in-memory coordinator.

use crate::authenticator::{ANONYMOUS, SUPERUSER_GROUP};
use crate::limiter::LimiterConfig;
use crate::password::ITERATIONS_MIN;
use crate::{Attempt, AuthError, AuthSettings, Authenticator, Credentials, UserStore};
use basalt_api::AuthMethod;
use basalt_coord::LocalCoordinator;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

fn settings(required: bool) -> AuthSettings {
    AuthSettings {
        required,
        superusers: vec!["root".into(), "@admins".into()],
        cluster_secret: Some(crate::secret::ClusterSecrets::fixed("cluster-s3cret")),
        password_iterations: ITERATIONS_MIN,
        limiter: LimiterConfig {
            free_failures: 2,
            backoff_base_ms: 60_000,
            ..LimiterConfig::default()
        },
        ..AuthSettings::default()
    }
}

async fn with_users(required: bool) -> Authenticator {
    let store = UserStore::new(Arc::new(LocalCoordinator::new()));
    store
        .add("alice", "wonderland", false, ITERATIONS_MIN, 0)
        .await
        .expect("add");
    store
        .add("boss", "pw", true, ITERATIONS_MIN, 0)
        .await
        .expect("add");
    Authenticator::new(settings(required), Some(store))
}

fn basic(user: &str, password: &str) -> String {
    Credentials::Password {
        user: user.into(),
        password: password.into(),
    }
    .header_value()
}

fn from(addr: [u8; 4], header: &str) -> Attempt<'_> {
    Attempt {
        header: Some(header),
        addr: Some(IpAddr::from(addr)),
        operation: "Get",
        asserted_user: None,
    }
}

#[tokio::test]
async fn passwords_tokens_and_the_cluster_secret_each_yield_their_principal() {
    let auth = with_users(true).await;
    let p = auth
        .authenticate(from([1, 1, 1, 1], &basic("alice", "wonderland")))
        .await
        .expect("alice");
    assert_eq!((p.name(), p.method()), ("alice", AuthMethod::Password));
    assert!(!auth.is_superuser(&p));
    let boss = auth
        .authenticate(from([1, 1, 1, 1], &basic("boss", "pw")))
        .await
        .expect("boss");
    assert_eq!(boss.groups(), [SUPERUSER_GROUP.to_string()]);
    assert!(auth.is_superuser(&boss));
    let store = auth.store().expect("store").clone();
    let t = store
        .issue_token(
            "alice",
            Duration::from_secs(60),
            crate::authenticator::now_ms(),
        )
        .await
        .expect("token");
    let header = Credentials::Token(t.token).header_value();
    let p = auth
        .authenticate(from([1, 1, 1, 1], &header))
        .await
        .expect("token");
    assert_eq!((p.name(), p.method()), ("alice", AuthMethod::Token));
    let cluster = Credentials::ClusterSecret("cluster-s3cret".into()).header_value();
    let p = auth
        .authenticate(from([1, 1, 1, 1], &cluster))
        .await
        .expect("cluster");
    assert_eq!(p.method(), AuthMethod::Internal);
    assert!(auth.is_superuser(&p));
    let wrong = Credentials::ClusterSecret("guess".into()).header_value();
    assert!(auth.authenticate(from([1, 1, 1, 2], &wrong)).await.is_err());
}

#[tokio::test]
async fn without_credentials_required_refuses_and_off_runs_as_the_named_user() {
    let on = with_users(true).await;
    let err = on
        .authenticate(Attempt::default())
        .await
        .expect_err("required");
    assert!(matches!(err, AuthError::Unauthenticated(_)), "{err}");
    assert_eq!(on.metrics().missing.load(Ordering::Relaxed), 1);
    let off = with_users(false).await;
    let p = off
        .authenticate(Attempt {
            asserted_user: Some("carol"),
            ..Attempt::default()
        })
        .await
        .expect("simple");
    assert_eq!((p.name(), p.method()), ("carol", AuthMethod::Simple));
    let p = off.authenticate(Attempt::default()).await.expect("simple");
    assert_eq!(p.name(), ANONYMOUS);
    let err = off
        .authenticate(from([1, 1, 1, 1], &basic("alice", "nope")))
        .await
        .expect_err("checked anyway");
    assert!(err.is_unauthenticated());
}

#[tokio::test]
async fn wrong_passwords_are_counted_then_refused_unchecked_per_address() {
    let auth = with_users(true).await;
    let bad = basic("alice", "guess");
    for _ in 0..3 {
        let err = auth
            .authenticate(from([6, 6, 6, 6], &bad))
            .await
            .expect_err("wrong");
        assert!(matches!(err, AuthError::Unauthenticated(_)), "{err}");
    }
    // Closed now: even the right password is refused without being checked.
    let err = auth
        .authenticate(from([6, 6, 6, 6], &basic("alice", "wonderland")))
        .await
        .expect_err("closed");
    assert!(
        matches!(err, AuthError::Throttled { retry_after_ms } if retry_after_ms > 0),
        "{err}"
    );
    assert_eq!(auth.metrics().failures.load(Ordering::Relaxed), 3);
    assert_eq!(auth.metrics().throttled.load(Ordering::Relaxed), 1);
    // Another address is unaffected.
    auth.authenticate(from([7, 7, 7, 7], &basic("alice", "wonderland")))
        .await
        .expect("other address");
}

#[tokio::test]
async fn an_expired_or_orphaned_token_is_refused() {
    fn later() -> u64 {
        crate::authenticator::now_ms() + 3_600_000
    }
    let auth = with_users(true).await;
    let store = auth.store().expect("store").clone();
    let t = store
        .issue_token(
            "alice",
            Duration::from_secs(60),
            crate::authenticator::now_ms(),
        )
        .await
        .expect("token");
    let header = Credentials::Token(t.token.clone()).header_value();
    let auth_later = Authenticator::new(settings(true), Some(store.clone())).with_clock(later);
    let err = auth_later
        .authenticate(from([1, 1, 1, 1], &header))
        .await
        .expect_err("expired");
    assert!(err.to_string().contains("expired"), "{err}");
    store.remove("alice").await.expect("remove");
    let fresh = Authenticator::new(settings(true), Some(store));
    let err = fresh
        .authenticate(from([1, 1, 1, 1], &header))
        .await
        .expect_err("revoked");
    assert!(err.to_string().contains("revoked"), "{err}");
}

#[tokio::test]
async fn config_superusers_match_by_name_and_group() {
    let auth = with_users(false).await;
    let root = basalt_api::Principal::new("root", AuthMethod::Simple);
    assert!(auth.is_superuser(&root));
    let ops =
        basalt_api::Principal::new("x", AuthMethod::Token).with_groups(["admins".to_string()]);
    assert!(auth.is_superuser(&ops));
    assert!(!auth.is_superuser(&basalt_api::Principal::new("x", AuthMethod::Token)));
}

/// Accepts alice's one password, counting the checks it was asked for.
struct OnePassword(std::sync::atomic::AtomicUsize);

impl crate::verifier::Verifier for OnePassword {
    fn verify(&self, credentials: Credentials) -> crate::verifier::Verified<'_> {
        self.0.fetch_add(1, Ordering::Relaxed);
        Box::pin(async move {
            match credentials {
                Credentials::Password { user, password } if user == "alice" && password == "ok" => {
                    Ok(basalt_api::Principal::new("alice", AuthMethod::Password))
                }
                other => Err(AuthError::Unauthenticated(format!("refused {other:?}"))),
            }
        })
    }
}

#[tokio::test]
async fn a_verifier_checks_passwords_under_the_same_cache_limiter_and_secret() {
    let verifier = Arc::new(OnePassword(Default::default()));
    let auth = Authenticator::new(settings(true), None).with_verifier(verifier.clone());
    let checks = || verifier.0.load(Ordering::Relaxed);
    let good = basic("alice", "ok");
    let p = auth
        .authenticate(from([10, 0, 0, 1], &good))
        .await
        .expect("alice");
    assert_eq!(p.name(), "alice");
    auth.authenticate(from([10, 0, 0, 1], &good))
        .await
        .expect("cached");
    assert_eq!(checks(), 1, "the second attempt is the cache's");

    let secret = format!("{} cluster-s3cret", crate::credentials::CLUSTER_SCHEME);
    let p = auth
        .authenticate(from([10, 0, 0, 1], &secret))
        .await
        .expect("secret");
    assert_eq!(p.method(), AuthMethod::Internal);
    assert_eq!(
        checks(),
        1,
        "the cluster secret is never handed to the verifier"
    );

    let bad = basic("alice", "guess");
    for _ in 0..3 {
        let e = auth
            .authenticate(from([10, 0, 0, 2], &bad))
            .await
            .expect_err("wrong");
        assert!(matches!(e, AuthError::Unauthenticated(_)), "{e}");
    }
    let e = auth
        .authenticate(from([10, 0, 0, 2], "Bearer bst_unseen"))
        .await
        .expect_err("closed");
    assert!(matches!(e, AuthError::Throttled { .. }), "{e}");
    assert_eq!(checks(), 4, "a throttled attempt is refused unchecked");
    assert_eq!(auth.metrics().failures.load(Ordering::Relaxed), 3);
}
