//! HBase's REST gateway ("Stargate") over any [`basalt_api::Connection`].
