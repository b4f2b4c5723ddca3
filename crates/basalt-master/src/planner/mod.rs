//! Where regions go: a pure function from a view of the cluster to decisions.
