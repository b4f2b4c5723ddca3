//! `basalt`: see `basalt --help`.

use clap::Parser;

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
