//! Compiles the `.proto` files with protox (pure Rust: no system `protoc`) and generates
//! the prost messages and tonic services from the descriptor set.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "proto/basalt/v1/types.proto",
        "proto/basalt/v1/table.proto",
        "proto/basalt/v1/admin.proto",
        "proto/basalt/v1/cluster.proto",
        "proto/basalt/v1/users.proto",
    ];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["proto"])?;
    // Every RPC's path, one per line (`/basalt.v1.TableService/Get`), so that tests can
    // enumerate the methods from the descriptors rather than from a list that a new
    // method could be missing from.
    let mut methods = String::new();
    for file in &descriptors.file {
        for service in &file.service {
            for method in &service.method {
                methods.push_str(&format!(
                    "/{}.{}/{}\n",
                    file.package(),
                    service.name(),
                    method.name()
                ));
            }
        }
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?).join("grpc_methods.txt");
    std::fs::write(out, methods)?;
    tonic_prost_build::configure()
        .build_transport(false)
        .bytes(".")
        .btree_map(".")
        .compile_fds(descriptors)?;
    Ok(())
}
