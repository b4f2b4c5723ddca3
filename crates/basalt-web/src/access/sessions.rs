//! Signed-in browsers: sessions kept in memory, each a random id (the cookie), its user,
//! a CSRF token every state-changing form must carry, and an expiry.
//!
//! Bounded: past `sessions_max` the expired go first, then the one expiring soonest. A
//! restart signs everyone out. Ids and tokens are 32 random bytes, compared as wholes
//! (a map lookup by the id; the CSRF token in constant time).

use basalt_api::Principal;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// One signed-in browser.
#[derive(Debug, Clone)]
pub struct Session {
    pub principal: Principal,
    pub csrf: String,
    pub expires: Instant,
}

/// Every session, by id.
#[derive(Debug)]
pub struct Sessions {
    open: Mutex<HashMap<String, Session>>,
    ttl: Duration,
    max: usize,
}

impl Sessions {
    pub fn new(ttl: Duration, max: usize) -> Self {
        Self {
            open: Mutex::new(HashMap::new()),
            ttl,
            max: max.max(1),
        }
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// A new session for `principal` under `id` with `csrf`, made room for at `now`.
    pub fn insert(&self, id: String, principal: Principal, csrf: String, now: Instant) {
        let mut open = self.open.lock();
        if open.len() >= self.max {
            open.retain(|_, s| s.expires > now);
        }
        while open.len() >= self.max {
            let soonest = open
                .iter()
                .min_by_key(|(_, s)| s.expires)
                .map(|(id, _)| id.clone());
            match soonest {
                Some(id) => open.remove(&id),
                None => break,
            };
        }
        let expires = now + self.ttl;
        open.insert(
            id,
            Session {
                principal,
                csrf,
                expires,
            },
        );
    }

    /// The live session `id` at `now`; an expired one is removed.
    pub fn get(&self, id: &str, now: Instant) -> Option<Session> {
        let mut open = self.open.lock();
        match open.get(id) {
            Some(s) if s.expires > now => Some(s.clone()),
            Some(_) => {
                open.remove(id);
                None
            }
            None => None,
        }
    }

    /// Ends session `id`; whether it was open.
    pub fn remove(&self, id: &str) -> bool {
        self.open.lock().remove(id).is_some()
    }

    pub fn len(&self) -> usize {
        self.open.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Whether `given` is the session's CSRF token (constant time over equal lengths).
pub fn csrf_matches(session: &Session, given: Option<&str>) -> bool {
    given.is_some_and(|g| {
        basalt_auth::password::constant_time_eq(g.as_bytes(), session.csrf.as_bytes())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_api::AuthMethod;

    fn p(name: &str) -> Principal {
        Principal::new(name, AuthMethod::Password)
    }

    #[test]
    fn sessions_expire_and_end() {
        let t0 = Instant::now();
        let s = Sessions::new(Duration::from_secs(60), 10);
        s.insert("a".into(), p("alice"), "c".into(), t0);
        assert_eq!(
            s.get("a", t0).map(|x| x.principal.name().to_string()),
            Some("alice".into())
        );
        assert!(s.get("b", t0).is_none());
        assert!(s.get("a", t0 + Duration::from_secs(61)).is_none());
        assert!(s.is_empty(), "an expired session is removed when looked up");
        s.insert("a".into(), p("alice"), "c".into(), t0);
        assert!(s.remove("a"));
        assert!(!s.remove("a"));
    }

    #[test]
    fn past_the_bound_the_expired_then_the_soonest_to_expire_go() {
        let t0 = Instant::now();
        let s = Sessions::new(Duration::from_secs(60), 2);
        s.insert("old".into(), p("a"), "c".into(), t0);
        s.insert(
            "mid".into(),
            p("b"),
            "c".into(),
            t0 + Duration::from_secs(10),
        );
        s.insert(
            "new".into(),
            p("c"),
            "c".into(),
            t0 + Duration::from_secs(20),
        );
        assert_eq!(s.len(), 2);
        assert!(s.get("old", t0 + Duration::from_secs(20)).is_none());
        assert!(s.get("mid", t0 + Duration::from_secs(20)).is_some());
        s.insert(
            "later".into(),
            p("d"),
            "c".into(),
            t0 + Duration::from_secs(75),
        );
        assert!(s.get("new", t0 + Duration::from_secs(75)).is_some());
        assert!(s.get("later", t0 + Duration::from_secs(75)).is_some());
    }

    #[test]
    fn the_csrf_token_must_match_whole() {
        let session = Session {
            principal: p("a"),
            csrf: "abcdef".into(),
            expires: Instant::now(),
        };
        assert!(csrf_matches(&session, Some("abcdef")));
        assert!(!csrf_matches(&session, Some("abcde")));
        assert!(!csrf_matches(&session, Some("")));
        assert!(!csrf_matches(&session, None));
    }
}
