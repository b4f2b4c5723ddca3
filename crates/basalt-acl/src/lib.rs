//! HBase's authorization model for Basalt: who may do what, decided from grants.
//!
//! Permissions `R`, `W`, `X`, `C`, `A` are granted to users and `@groups` at global,
//! namespace, table, family and qualifier scope (the grants themselves are plain data in
//! [`basalt_api::acl`], kept by the catalog). This crate holds HBase's Access Control
//! Matrix as data ([`matrix`]), the pure decision over it ([`check`], [`read`]), and the
//! [`AuthorizedConnection`] that enforces it in front of any [`basalt_api::Connection`]
//! — embedded, or the one a server serves each request through.
//!
//! It is not authentication: a [`basalt_api::Principal`] arrives already established by a
//! listener. Nor does it keep grants: it reads them through a [`GrantSource`].
//!
//! # Layout
//! - [`context`]: the principal of the call running on a thread, for servers.
//! - [`matrix`]: every operation and the scopes and permissions that allow it.
//! - [`check`]: [`Checker`]: superusers, [`Object`]s, and the decision with HBase's
//!   `AccessDeniedException` wording.
//! - [`read`]: reads filtered to the families and columns a user may read.
//! - [`source`]: where the wrapper reads grants from ([`GrantSource`]).
//! - [`wrap`]: [`AuthorizedConnection`], its `Table` and `Admin`.

pub mod check;
pub mod context;
pub mod matrix;
pub mod read;
pub mod source;
pub mod wrap;

pub use check::{AccessDenied, Checker, Object};
pub use matrix::{Level, Op, Rule};
pub use read::{CellFilter, ReadAccess};
pub use source::{AdminGrants, GrantSource};
pub use wrap::AuthorizedConnection;
