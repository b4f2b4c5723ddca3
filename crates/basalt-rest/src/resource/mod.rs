//! One module per REST resource: parse the request, call the connection (off the async
//! threads), render the model.
//!
//! # Layout
//! - [`root`] — `/` (tables), `/version`, `/version/cluster`, `/status/cluster`.
//! - [`namespaces`] — `/namespaces[/<ns>[/tables]]`.
//! - [`schema`] — `/<table>/schema`.
//! - [`regions`] — `/<table>/regions`, `/<table>/exists`.
//! - [`rows`] — reading and deleting rows by row spec.
//! - [`write`] — writing cells (cell sets and single octet-stream cells).
//! - [`check`] — `?check=put|delete|increment|append`.
//! - [`multiget`] — `/<table>/multiget?row=…`.
//! - [`table_scan`] — the stateless scan `/<table>/<prefix>*?…`.
//! - [`scanners`] — stateful scanners `/<table>/scanner[/<id>]`.

pub mod check;
pub mod multiget;
pub mod namespaces;
pub mod regions;
pub mod root;
pub mod rows;
pub mod scanners;
pub mod schema;
pub mod table_scan;
pub mod write;
