//! The principal of the call running on this thread, for connections that serve many
//! principals ([`crate::AuthorizedConnection::per_call`]): a server sets it around each
//! request's work ([`with`]) and the connection's checks read it ([`current`]).

use basalt_api::Principal;
use std::cell::RefCell;

thread_local! {
    static CURRENT: RefCell<Option<Principal>> = const { RefCell::new(None) };
}

/// Runs `work` with `principal` as the current one on this thread, then puts back the
/// previous one (also when `work` panics).
pub fn with<T>(principal: Option<Principal>, work: impl FnOnce() -> T) -> T {
    struct Restore(Option<Principal>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let previous = CURRENT.with(|c| c.replace(principal));
    let _restore = Restore(previous);
    work()
}

/// The principal set by the innermost [`with`] on this thread.
pub fn current() -> Option<Principal> {
    CURRENT.with(|c| c.borrow().clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_api::AuthMethod;

    #[test]
    fn nested_calls_see_their_own_principal_and_the_outer_one_comes_back() {
        let a = Principal::new("a", AuthMethod::Simple);
        let b = Principal::new("b", AuthMethod::Simple);
        assert_eq!(current(), None);
        with(Some(a.clone()), || {
            assert_eq!(current(), Some(a.clone()));
            with(Some(b.clone()), || assert_eq!(current(), Some(b.clone())));
            assert_eq!(current(), Some(a.clone()));
        });
        assert_eq!(current(), None);
    }
}
