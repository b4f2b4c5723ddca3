//! `basalt`: see `basalt --help`.

use clap::Parser;

/// mimalloc rather than the system allocator: it keeps freed memory for reuse instead of
/// handing it back and faulting it in again, and its per-thread pages suit the memstore's
/// many small nodes (see docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli = basalt_cli::cli::Cli::parse();
    match basalt_cli::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("basalt: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
