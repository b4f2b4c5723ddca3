//! Raw gRPC calls, for tests that enumerate methods regardless of their messages.

/// A raw unary call of `path` with an empty message and `authorization`, on a fresh
/// channel; the status code it got.
pub fn raw_call(addr: &str, path: &'static str, authorization: Option<&str>) -> tonic::Code {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .expect("endpoint")
            .connect()
            .await
            .expect("connect");
        let mut grpc = tonic::client::Grpc::new(channel);
        grpc.ready().await.expect("ready");
        let mut request = tonic::Request::new(());
        if let Some(value) = authorization {
            request
                .metadata_mut()
                .insert("authorization", value.parse().expect("header"));
        }
        let codec = tonic_prost::ProstCodec::<(), ()>::default();
        let path = tonic::codegen::http::uri::PathAndQuery::from_static(path);
        match grpc.unary(request, path, codec).await {
            Ok(_) => tonic::Code::Ok,
            Err(status) => status.code(),
        }
    })
}
