//! The `shardlens` binary: headless commands, or (with no command) the desktop app.

use clap::Parser as _;
use shardlens::cli::{Cli, run};

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Some(command) => run(command),
        None => gui(),
    };
    std::process::exit(code);
}

#[cfg(feature = "gui")]
fn gui() -> i32 {
    use shardlens::app::{APP_ID, App};
    let viewport = eframe::egui::ViewportBuilder::default()
        .with_title("shardlens")
        .with_app_id(APP_ID)
        .with_inner_size([1280.0, 780.0])
        .with_min_inner_size([720.0, 480.0]);
    let options = eframe::NativeOptions {
        viewport,
        ..Default::default()
    };
    match eframe::run_native(
        "shardlens",
        options,
        Box::new(|cc| Ok(Box::new(App::new(cc)))),
    ) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("shardlens: cannot open the window: {e:#}");
            1
        }
    }
}

#[cfg(not(feature = "gui"))]
fn gui() -> i32 {
    use clap::CommandFactory as _;
    eprintln!("shardlens was built without the desktop app (feature `gui`); the commands:\n");
    let _ = Cli::command().print_help();
    2
}
