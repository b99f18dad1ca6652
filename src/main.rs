//! The `shardlens` binary: headless commands, or (with no command) the desktop app.

use clap::Parser as _;
use shardlens::cli::{Cli, run};

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Some(command) => run(command),
        None => {
            // The desktop app arrives with the next milestone; until then, show what the CLI can do.
            use clap::CommandFactory as _;
            let _ = Cli::command().print_help();
            0
        }
    };
    std::process::exit(code);
}
