//! "Connect to DynamoDB": profile, region and endpoint; the table list with key schemas; a keys-only scan
//! whose pages grow the histogram live. Every SDK call runs on a background thread; the app only drains
//! messages. Read-only: the source layer calls ListTables, DescribeTable and Scan, nothing else.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, sync_channel};

use serde::{Deserialize, Serialize};

use crate::model::KeySet;
use crate::source::dynamo::{
    ConnectOptions, DEFAULT_MAX_RCU, DEFAULT_SEGMENTS, DynamoClient, MAX_SEGMENTS, ScanEvent,
    ScanOptions, ScanProgress, Scanned, TableInfo,
};

/// Where to connect; remembered between runs (never credentials).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ConnectSettings {
    pub profile: String,
    pub region: String,
    pub endpoint: String,
}

impl ConnectSettings {
    pub fn options(&self) -> ConnectOptions {
        let some = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_owned());
        ConnectOptions {
            profile: some(&self.profile),
            region: some(&self.region),
            endpoint: some(&self.endpoint),
            ..ConnectOptions::default()
        }
    }
}

enum Reply {
    Tables(Result<Vec<String>, String>),
    Described(Result<TableInfo, String>),
}

/// What the dialog asks the app to do.
pub enum ConnectCommand {
    Scan(ConnectOptions, ScanOptions),
}

pub struct ConnectState {
    pub open: bool,
    tables: Vec<String>,
    selected: Option<String>,
    info: Option<TableInfo>,
    segments: u32,
    max_rcu: f64,
    limit: u64,
    with_sort_key: bool,
    consistent: bool,
    busy: Option<&'static str>,
    error: Option<String>,
    replies: Option<Receiver<Reply>>,
}

impl Default for ConnectState {
    fn default() -> Self {
        Self {
            open: false,
            tables: Vec::new(),
            selected: None,
            info: None,
            segments: DEFAULT_SEGMENTS,
            max_rcu: DEFAULT_MAX_RCU,
            limit: 0,
            with_sort_key: false,
            consistent: false,
            busy: None,
            error: None,
            replies: None,
        }
    }
}

impl ConnectState {
    fn ask(
        &mut self,
        what: &'static str,
        ctx: &egui::Context,
        f: impl FnOnce() -> Reply + Send + 'static,
    ) {
        let (tx, rx) = sync_channel(1);
        let ctx = ctx.clone();
        self.busy = Some(what);
        self.error = None;
        let spawned = std::thread::Builder::new()
            .name("shardlens-dynamo".into())
            .spawn(move || {
                let _ = tx.send(f());
                ctx.request_repaint();
            });
        match spawned {
            Ok(_) => self.replies = Some(rx),
            Err(e) => {
                self.busy = None;
                self.error = Some(format!("cannot start a thread: {e}"));
            }
        }
    }

    fn drain(&mut self) {
        let Some(rx) = &self.replies else { return };
        let Ok(reply) = rx.try_recv() else { return };
        self.replies = None;
        self.busy = None;
        match reply {
            Reply::Tables(Ok(t)) => {
                self.tables = t;
                if self.tables.is_empty() {
                    self.error = Some("no tables in this account and region".to_owned());
                }
            }
            Reply::Described(Ok(info)) => self.info = Some(info),
            Reply::Tables(Err(e)) | Reply::Described(Err(e)) => self.error = Some(e),
        }
    }
}

/// The dialog window. Returns a scan to start.
pub fn connect_ui(
    ctx: &egui::Context,
    state: &mut ConnectState,
    settings: &mut ConnectSettings,
) -> Option<ConnectCommand> {
    state.drain();
    let mut command = None;
    let mut open = state.open;
    egui::Window::new("Connect to DynamoDB")
        .open(&mut open)
        .resizable(true)
        .default_width(460.0)
        .show(ctx, |ui| {
            egui::Grid::new("connect-grid")
                .num_columns(2)
                .show(ui, |ui| {
                    for (name, value, hint) in [
                        ("Profile", &mut settings.profile, "default chain"),
                        (
                            "Region",
                            &mut settings.region,
                            "from the profile or AWS_REGION",
                        ),
                        (
                            "Endpoint",
                            &mut settings.endpoint,
                            "http://localhost:8000 for local servers",
                        ),
                    ] {
                        let label = ui.label(name);
                        ui.add(egui::TextEdit::singleline(value).hint_text(hint))
                            .labelled_by(label.id);
                        ui.end_row();
                    }
                });
            ui.horizontal(|ui| {
                let ready = state.busy.is_none();
                if ui
                    .add_enabled(ready, egui::Button::new("List tables"))
                    .clicked()
                {
                    let opts = settings.options();
                    state.tables.clear();
                    state.info = None;
                    state.ask("listing tables", ctx, move || {
                        Reply::Tables(
                            DynamoClient::connect(&opts)
                                .and_then(|c| c.list_tables())
                                .map_err(|e| format!("{e:#}")),
                        )
                    });
                }
                if let Some(what) = state.busy {
                    ui.spinner();
                    ui.label(what);
                }
            });
            if let Some(e) = &state.error {
                ui.colored_label(super::theme::ERROR, e);
            }
            if !state.tables.is_empty() {
                ui.separator();
                let mut picked = None;
                egui::ScrollArea::vertical()
                    .id_salt("tables")
                    .max_height(140.0)
                    .show(ui, |ui| {
                        for t in &state.tables {
                            if ui
                                .selectable_label(state.selected.as_ref() == Some(t), t)
                                .clicked()
                            {
                                picked = Some(t.clone());
                            }
                        }
                    });
                if let Some(t) = picked {
                    state.selected = Some(t.clone());
                    state.info = None;
                    let opts = settings.options();
                    state.ask("describing the table", ctx, move || {
                        Reply::Described(
                            DynamoClient::connect(&opts)
                                .and_then(|c| c.describe_table(&t))
                                .map_err(|e| format!("{e:#}")),
                        )
                    });
                }
            }
            if let Some(info) = &state.info {
                ui.separator();
                ui.label(egui::RichText::new(&info.name).strong());
                ui.label(info.describe_keys());
                ui.horizontal(|ui| {
                    let label = ui.label("Segments");
                    ui.add(egui::DragValue::new(&mut state.segments).range(1..=MAX_SEGMENTS))
                        .labelled_by(label.id);
                    let label = ui.label("Max RCU/s");
                    ui.add(egui::DragValue::new(&mut state.max_rcu).range(0.0..=1_000_000.0))
                        .labelled_by(label.id)
                        .on_hover_text(
                            "Read units consumed per second over all segments (0 = no cap)",
                        );
                    let label = ui.label("Sample");
                    ui.add(egui::DragValue::new(&mut state.limit).suffix(" items"))
                        .labelled_by(label.id)
                        .on_hover_text("Stop after this many items (0 = the whole table)");
                });
                ui.horizontal(|ui| {
                    ui.checkbox(&mut state.with_sort_key, "Also read the sort key");
                    ui.checkbox(&mut state.consistent, "Strongly consistent");
                });
                if ui.button("Scan keys").clicked() {
                    let mut scan = ScanOptions::new(info.name.clone());
                    scan.segments = state.segments;
                    scan.max_rcu = (state.max_rcu > 0.0).then_some(state.max_rcu);
                    scan.limit = (state.limit > 0).then_some(state.limit);
                    scan.with_sort_key = state.with_sort_key && info.sort_key.is_some();
                    scan.consistent = state.consistent;
                    command = Some(ConnectCommand::Scan(settings.options(), scan));
                }
                ui.weak("Reads only the key attributes; never writes. Cancel keeps what was read.");
            }
        });
    state.open = open && command.is_none();
    command
}

/// A scan under way: pages arrive over a bounded channel from a background thread.
pub struct ScanJob {
    pub table: String,
    rx: Receiver<ScanEvent>,
    cancel: Arc<AtomicBool>,
    /// Keys read so far (pages merged).
    pub live: KeySet,
    pub progress: Option<ScanProgress>,
}

/// What draining a scan gives the app.
pub enum ScanUpdate {
    /// New pages were merged into `live`.
    Grew,
    Done(Result<Box<Scanned>, String>),
}

impl ScanJob {
    pub fn start(ctx: &egui::Context, connect: ConnectOptions, scan: ScanOptions) -> Option<Self> {
        let (tx, rx) = sync_channel(64);
        let cancel = Arc::new(AtomicBool::new(false));
        let thread_cancel = Arc::clone(&cancel);
        let table = scan.table.clone();
        let ctx = ctx.clone();
        std::thread::Builder::new()
            .name("shardlens-scan".into())
            .spawn(move || {
                match DynamoClient::connect(&connect) {
                    Ok(client) => {
                        // Forward events, asking for a repaint each time.
                        let (inner_tx, inner_rx) = sync_channel(64);
                        let (client, scan, cancel) = (&client, &scan, &*thread_cancel);
                        std::thread::scope(|s| {
                            s.spawn(move || client.scan_to_channel(scan, cancel, &inner_tx));
                            for event in inner_rx {
                                if tx.send(event).is_err() {
                                    thread_cancel.store(true, Ordering::Relaxed);
                                }
                                ctx.request_repaint();
                            }
                        });
                    }
                    Err(e) => {
                        let _ = tx.send(ScanEvent::Done(Err(e)));
                        ctx.request_repaint();
                    }
                }
            })
            .ok()?;
        Some(Self {
            table,
            rx,
            cancel,
            live: KeySet::default(),
            progress: None,
        })
    }

    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn drain(&mut self) -> Option<ScanUpdate> {
        let mut grew = false;
        while let Ok(event) = self.rx.try_recv() {
            match event {
                ScanEvent::Page { keys, progress } => {
                    if self.live.is_empty() {
                        self.live = KeySet::new(keys.key_type());
                    }
                    self.live.merge(&keys);
                    self.progress = Some(progress);
                    grew = true;
                }
                ScanEvent::Throttled { progress } => self.progress = Some(progress),
                ScanEvent::Done(result) => {
                    return Some(ScanUpdate::Done(result.map_err(|e| format!("{e:#}"))));
                }
            }
        }
        grew.then_some(ScanUpdate::Grew)
    }
}
