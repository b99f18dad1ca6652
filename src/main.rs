//! The `shardlens` binary: headless commands, or (with no command) the desktop app.

// No unsafe code in shardlens: it lives in crates/ (see the root Cargo.toml's lints).
#![forbid(unsafe_code)]

#[cfg(not(target_arch = "wasm32"))]
use clap::{CommandFactory as _, FromArgMatches as _};
#[cfg(not(target_arch = "wasm32"))]
use shardlens::cli::{Cli, long_version, run};

/// In a page (`scripts/web.sh build`): the app on the page's canvas; there is no command line.
#[cfg(all(target_arch = "wasm32", feature = "gui"))]
fn main() {
    shardlens::app::web::start();
}

/// In a page's worker (web/worker.js): runs the task handed over as job `id` (`shardlens::app::workers`).
#[cfg(all(target_arch = "wasm32", feature = "gui"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn shardlens_run_handed(id: u32) {
    shardlens::app::workers::run_handed(id);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    // As `Cli::parse`, with a `--version` that says what this CPU gets (known only at run time).
    let matches = Cli::command()
        .long_version(&*Box::leak(long_version().into_boxed_str()))
        .get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let code = match cli.command {
        Some(command) => run(command),
        None => match cli.files.iter().find(|f| !f.exists()) {
            // A typo of a command must not open a window on a missing file.
            Some(missing) => {
                eprintln!(
                    "shardlens: {}: no such file, and not a command (see shardlens --help)",
                    missing.display()
                );
                2
            }
            None => gui(cli.files),
        },
    };
    std::process::exit(code);
}

#[cfg(all(feature = "gui", not(target_arch = "wasm32")))]
fn gui(files: Vec<std::path::PathBuf>) -> i32 {
    use shardlens::app::{APP_ID, App};
    let mut viewport = eframe::egui::ViewportBuilder::default()
        .with_title("shardlens")
        .with_app_id(APP_ID)
        .with_inner_size([1280.0, 780.0])
        .with_min_inner_size([720.0, 480.0]);
    if let Some(icon) = shardlens::app::icon() {
        viewport = viewport.with_icon(icon);
    }
    let options = eframe::NativeOptions {
        viewport,
        ..Default::default()
    };
    // Where eframe keeps the settings (the same path it computes): checked before it opens the file, which it
    // would otherwise take for none and write over at exit.
    let state_note = eframe::storage_dir(APP_ID)
        .and_then(|dir| shardlens::source::app_state::check_state_file(&dir.join("app.ron")));
    match eframe::run_native(
        "shardlens",
        options,
        Box::new(move |cc| {
            let mut app = App::new(cc);
            if let Some(note) = &state_note {
                app.say_state_note(note);
            }
            if let Some(first) = files.into_iter().next() {
                app.open_at_start(first);
            }
            Ok(Box::new(app))
        }),
    ) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("shardlens: cannot open the window: {e:#}");
            1
        }
    }
}

#[cfg(all(not(feature = "gui"), not(target_arch = "wasm32")))]
fn gui(_files: Vec<std::path::PathBuf>) -> i32 {
    use clap::CommandFactory as _;
    eprintln!("shardlens was built without the desktop app (feature `gui`); the commands:\n");
    let _ = Cli::command().print_help();
    2
}
