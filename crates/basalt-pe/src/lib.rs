//! `basalt pe`: HBase's PerformanceEvaluation commands and YCSB workloads over any
//! [`basalt_api::Connection`].
