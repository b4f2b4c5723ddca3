//! HBase's Thrift1 gateway (service `Hbase`) over any [`basalt_api::Connection`].
