//! Compiles the subset of etcd's v3 API in `proto/` with protox (pure Rust: no system
//! `protoc`) and generates the prost messages and tonic clients from the descriptor set.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["proto/kv.proto", "proto/etcd.proto"];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["proto"])?;
    tonic_prost_build::configure()
        .build_transport(false)
        .build_server(false)
        .compile_fds(descriptors)?;
    Ok(())
}
