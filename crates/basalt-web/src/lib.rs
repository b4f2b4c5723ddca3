//! The web UI (tables, regions, servers) and the metrics endpoints of a standalone server.
