//! Compiles Basalt's own `.proto` files for HBase's messages with protox (pure Rust: no
//! system `protoc`) into prost messages. No services: HBase's RPC is not gRPC, and
//! `basalt-hbase` frames and dispatches calls itself.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "proto/hbase/rpc.proto",
        "proto/hbase/hbase.proto",
        "proto/hbase/client.proto",
        "proto/hbase/master.proto",
        "proto/hbase/zookeeper.proto",
        "proto/hbase/registry.proto",
        "proto/hbase/admin.proto",
        "proto/hbase/snapshot.proto",
    ];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["proto"])?;
    tonic_prost_build::configure()
        .build_server(false)
        .build_client(false)
        .bytes(".")
        .compile_fds(descriptors)?;
    Ok(())
}
