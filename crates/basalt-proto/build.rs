//! Compiles the `.proto` files with protox (pure Rust: no system `protoc`) and generates
//! the prost messages and tonic services from the descriptor set.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "proto/basalt/v1/types.proto",
        "proto/basalt/v1/table.proto",
        "proto/basalt/v1/admin.proto",
        "proto/basalt/v1/cluster.proto",
    ];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["proto"])?;
    tonic_prost_build::configure()
        .build_transport(false)
        .bytes(".")
        .btree_map(".")
        .compile_fds(descriptors)?;
    Ok(())
}
