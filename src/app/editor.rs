//! The key editor: a text editor for small key sets, a virtualised, filterable list for large ones.

use std::sync::Arc;

use super::Command;
use crate::model::{KeySet, KeyType};
use crate::source::{CsvHeader, FormatIn, LoadOptions, OnBad};

/// Above this many lines the text is held as data, not in a `TextEdit` (which slows past ~100k lines).
pub const TEXT_LINE_LIMIT: usize = 20_000;

/// Editor state that is not the keys themselves.
#[derive(Debug, Default)]
pub struct EditorState {
    pub filter: String,
    /// Key indices matching `filter` (most written first), recomputed when the filter or the keys change.
    filtered: Option<Filtered>,
}

#[derive(Debug)]
struct Filtered {
    filter: String,
    /// The ordering it was filtered from (identifies the key set).
    source: Arc<Vec<u32>>,
    rows: Arc<Vec<u32>>,
}

/// "1,000 writes · 41 distinct keys" (items for inputs that are not a log of writes: exports, scans, models).
pub fn header(keys: &KeySet) -> String {
    format!(
        "{} · {}",
        total(keys),
        crate::model::fmt::plural(keys.len() as u64, "distinct key")
    )
}

/// "1,000 writes", or "1,000 items" for inputs that are not a log of writes (the header's first half).
pub fn total(keys: &KeySet) -> String {
    let noun = if keys.write_ordered() {
        "write"
    } else {
        "item"
    };
    crate::model::fmt::plural(keys.total(), noun)
}

/// The editor for text input. Returns whether the text changed.
pub fn text_ui(ui: &mut egui::Ui, text: &mut String) -> bool {
    let label = ui.label(
        "Keys (one per line; a repeated line is a repeated write; pk<TAB>sk adds a sort key)",
    );
    // Lines never wrap: a long `pk<TAB>sk` line must read as one key, so the editor scrolls sideways instead.
    let mut layouter = |ui: &egui::Ui, buf: &dyn egui::TextBuffer, _wrap_width: f32| {
        let job = egui::text::LayoutJob::simple(
            buf.as_str().to_owned(),
            egui::TextStyle::Monospace.resolve(ui.style()),
            ui.visuals().text_color(),
            f32::INFINITY,
        );
        ui.fonts_mut(|f| f.layout_job(job))
    };
    egui::ScrollArea::both()
        .id_salt("editor-scroll")
        .show(ui, |ui| {
            ui.add_sized(
                ui.available_size(),
                egui::TextEdit::multiline(text)
                    .id_salt("key-editor")
                    .code_editor()
                    .hint_text("BOARD#global\nBOARD#chess\nUSER#42\n…")
                    .layouter(&mut layouter),
            )
            .labelled_by(label.id)
            .changed()
        })
        .inner
}

/// The read-only list for large key sets: filter box, per-key counts, only visible rows drawn.
pub fn list_ui(
    ui: &mut egui::Ui,
    state: &mut EditorState,
    keys: &KeySet,
    by_count: &Arc<Vec<u32>>,
) -> Option<Command> {
    let mut command = None;
    // Wrapped, and the field no wider than the panel leaves: the row never widens the panel.
    ui.horizontal_wrapped(|ui| {
        let label = ui.label("Filter");
        let width = (ui.available_width() - 8.0).clamp(60.0, 160.0);
        ui.add(egui::TextEdit::singleline(&mut state.filter).desired_width(width))
            .labelled_by(label.id);
        let small = (keys.total() as usize) <= TEXT_LINE_LIMIT;
        if ui
            .add_enabled(small, egui::Button::new("Edit as text"))
            .on_disabled_hover_text(format!(
                "Only key sets up to {TEXT_LINE_LIMIT} writes can be edited as text"
            ))
            .clicked()
        {
            command = Some(Command::EditAsText);
        }
    });
    let stale = state
        .filtered
        .as_ref()
        .is_none_or(|f| f.filter != state.filter || !Arc::ptr_eq(&f.source, by_count));
    if stale {
        let needle = state.filter.to_lowercase();
        let matching = if needle.is_empty() {
            Arc::clone(by_count)
        } else {
            Arc::new(
                by_count
                    .iter()
                    .copied()
                    .filter(|&i| keys.display(i).to_lowercase().contains(&needle))
                    .collect(),
            )
        };
        state.filtered = Some(Filtered {
            filter: state.filter.clone(),
            source: Arc::clone(by_count),
            rows: matching,
        });
    }
    let rows: &[u32] = state.filtered.as_ref().map_or(&[], |f| f.rows.as_slice());
    // A file of items counts items per key, not writes.
    let order = if keys.write_ordered() {
        "most written first"
    } else {
        "most items first"
    };
    ui.weak(format!(
        "{} shown, {order}",
        crate::model::fmt::plural(rows.len() as u64, "key")
    ));
    let row_height = ui.text_style_height(&egui::TextStyle::Monospace);
    egui::ScrollArea::vertical()
        .id_salt("key-list")
        .auto_shrink(false)
        .show_rows(ui, row_height, rows.len(), |ui, range| {
            for &i in &rows[range] {
                ui.horizontal(|ui| {
                    ui.monospace(format!("{:>10}", keys.count(i)));
                    // A long key (an e-mail address) is cut to the panel with "…", whole on hover: it never
                    // widens the panel.
                    ui.add(
                        egui::Label::new(egui::RichText::new(keys.display(i)).monospace())
                            .truncate(),
                    );
                });
            }
        });
    command
}

/// Key type picker.
pub fn key_type_ui(ui: &mut egui::Ui, key_type: &mut KeyType) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        ui.label("Key type");
        for t in KeyType::ALL {
            changed |= ui
                .selectable_value(key_type, t, t.as_str())
                .on_hover_text(t.describe())
                .changed();
        }
    });
    changed
}

/// How files are read: format, key attributes, what to do with bad records. Drawn inside File > Load options,
/// so the format is a submenu of it (a combo box's popup inside a menu closed the whole menu on its first
/// click).
pub fn load_options_ui(ui: &mut egui::Ui, opts: &mut LoadOptions, keep: &mut bool) {
    ui.label("Format");
    ui.menu_button(opts.format.describe(), |ui| {
        for f in FormatIn::ALL {
            if ui
                .selectable_label(opts.format == f, f.describe())
                .clicked()
            {
                opts.format = f;
                ui.close();
            }
        }
    });
    key_type_override_ui(ui, &mut opts.key_type);
    for (name, value, hint) in [
        (
            "Key attribute",
            &mut opts.key,
            "from the data (pk, PK, id…)",
        ),
        (
            "Sort key attribute",
            &mut opts.sort_key,
            "from the data (sk, SK…)",
        ),
    ] {
        draft_field(
            ui,
            name,
            hint,
            value,
            |v| v.clone().unwrap_or_default(),
            |t| (!t.trim().is_empty()).then(|| t.trim().to_owned()),
        );
    }
    draft_field(
        ui,
        "CSV columns",
        "from the header row (a,b,c names them)",
        &mut opts.csv_columns,
        |c| c.as_ref().map(|c| c.join(",")).unwrap_or_default(),
        |text| {
            let names: Vec<String> = text
                .split(',')
                .map(|n| n.trim().to_owned())
                .filter(|n| !n.is_empty())
                .collect();
            (!names.is_empty()).then_some(names)
        },
    );
    csv_header_ui(ui, &mut opts.csv_header);
    let mut skip = opts.on_bad == OnBad::Skip;
    if ui
        .checkbox(
            &mut skip,
            "Skip bad records (count them) instead of stopping",
        )
        .changed()
    {
        opts.on_bad = if skip { OnBad::Skip } else { OnBad::Stop };
    }
    ui.checkbox(keep, "Keep these options for the next files")
        .on_hover_text(
            "Off: the options apply to the next load and File > Reload; another file starts from detection",
        );
}

/// The file's key type: from the data (a typed format's values, plain JSON's kinds; lines and CSV are
/// strings), or S, N or B as `--key-type` gives it. The editor's Key type is for typed and pasted keys only.
fn key_type_override_ui(ui: &mut egui::Ui, key_type: &mut Option<KeyType>) {
    let name = |t: Option<KeyType>| match t {
        None => "from the data".to_owned(),
        Some(t) => format!("{t} ({})", t.describe()),
    };
    ui.menu_button(format!("Key type: {}", name(*key_type)), |ui| {
        for t in std::iter::once(None).chain(KeyType::ALL.map(Some)) {
            let tip = match t {
                None => "Typed formats (DynamoDB JSON, Ion, exports) and plain JSON take each key's type from                          its value; lines and CSV are read as strings",
                Some(_) => "Lines and CSV are read as this type; a typed format's keys must be of it",
            };
            if ui
                .selectable_label(*key_type == t, name(t))
                .on_hover_text(tip)
                .clicked()
            {
                *key_type = t;
                ui.close();
            }
        }
    })
    .response
    .on_hover_text("Applies to the next file only, unless the options are kept");
}

/// Whether a CSV file's first row is a header: Auto, Yes or No.
fn csv_header_ui(ui: &mut egui::Ui, csv_header: &mut CsvHeader) {
    ui.horizontal(|ui| {
        let label = ui.label("First row is a header");
        for (h, text, tip) in [
            (
                CsvHeader::Auto,
                "Auto",
                "a first row shaped like the rows below it is data (columns col1, col2, …)",
            ),
            (CsvHeader::Yes, "Yes", "the first row names the columns"),
            (
                CsvHeader::No,
                "No",
                "every row is data (columns col1, col2, …, or the CSV columns above)",
            ),
        ] {
            ui.selectable_value(csv_header, h, text)
                .on_hover_text(tip)
                .labelled_by(label.id);
        }
    });
}

/// A labelled text field for a value parsed from its text. The field holds the text as typed (in egui's
/// memory), so a character that parses away (a trailing comma, a space) stays while typing; the text is made
/// again from the value only when the value changes from elsewhere (another load, a reset).
fn draft_field<T: PartialEq>(
    ui: &mut egui::Ui,
    name: &str,
    hint: &str,
    value: &mut T,
    show: impl Fn(&T) -> String,
    parse: impl Fn(&str) -> T,
) {
    let label = ui.label(name);
    let id = egui::Id::unique(("load-options-draft", name));
    let mut text = ui
        .data(|d| d.get_temp::<String>(id))
        .filter(|draft| parse(draft) == *value)
        .unwrap_or_else(|| show(value));
    let changed = ui
        .add(egui::TextEdit::singleline(&mut text).hint_text(hint))
        .labelled_by(label.id)
        .changed();
    if changed {
        *value = parse(&text);
    }
    ui.data_mut(|d| d.insert_temp(id, text));
}
