//! The table picker: a file that holds several tables (a NoSQL Workbench model, a BatchWriteItem request file)
//! is never merged into one key set. The first table loads, and this window asks which one to show; choosing
//! another reloads the file with that table ([`crate::source::LoadOptions::table`]).

use std::path::PathBuf;

/// A file with several tables, and the one on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablePicker {
    pub path: PathBuf,
    pub tables: Vec<String>,
    pub loaded: Option<String>,
}

impl TablePicker {
    /// The picker for a finished load, when its file holds several tables.
    pub fn for_load(path: &std::path::Path, loaded: &crate::source::Loaded) -> Option<Self> {
        (loaded.tables.len() > 1).then(|| Self {
            path: path.to_path_buf(),
            tables: loaded.tables.clone(),
            loaded: loaded.table.clone(),
        })
    }
}

/// What the user chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Picked {
    /// Reload the file with this table.
    Table(PathBuf, String),
    /// Keep the table on screen and close the window.
    Close,
}

/// The picker window; `None` while the user has not chosen.
pub fn table_picker_ui(ctx: &egui::Context, picker: &TablePicker) -> Option<Picked> {
    let mut picked = None;
    let file = picker.path.file_name().map_or_else(
        || picker.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    egui::Window::new("Choose a table")
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_TOP, [0.0, 60.0])
        .show(ctx, |ui| {
            ui.label(format!(
                "{file} holds {} tables; their keys are never merged. Showing: {}.",
                picker.tables.len(),
                picker.loaded.as_deref().unwrap_or("none")
            ));
            ui.add_space(4.0);
            for t in &picker.tables {
                let current = picker.loaded.as_deref() == Some(t.as_str());
                if ui.selectable_label(current, t).clicked() && !current {
                    picked = Some(Picked::Table(picker.path.clone(), t.clone()));
                }
            }
            ui.add_space(4.0);
            if ui.button("Keep this table").clicked() {
                picked = Some(Picked::Close);
            }
        });
    picked
}

impl super::App {
    /// Reloads `path` with `table` (the other load options as they are).
    pub fn open_table(&mut self, path: PathBuf, table: String) {
        let saved = self.data.load_options.table.replace(table);
        // The file the picker was shown for, as it was given (bytes in a page): read again on that table.
        let input = match &self.data.last_file {
            Some((input, _)) if input.name() == path => input.clone(),
            _ => crate::source::open::Input::Path(path),
        };
        self.open_input(input, crate::source::open::Expect::Keys);
        self.data.load_options.table = saved;
    }

    /// Shows the picker while a loaded file has several tables; returns the choice.
    pub(super) fn table_picker_frame(&self, ctx: &egui::Context) -> Option<super::Command> {
        let picker = self.panels.table_picker.as_ref()?;
        match table_picker_ui(ctx, picker)? {
            Picked::Table(path, table) => Some(super::Command::OpenTable(path, table)),
            Picked::Close => Some(super::Command::CloseTablePicker),
        }
    }
}
