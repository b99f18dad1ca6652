//! "Connect to DynamoDB": profile, region and endpoint; the table list with key schemas; a keys-only scan
//! whose pages grow the histogram live, optionally reading the key attributes of the table's global secondary
//! indexes too (each GSI's keys reach [`Scanned::designs`]); and the described table's live traffic: **Watch
//! writes** (its DynamoDB Stream) and **Last hours of metrics** (CloudWatch), run by [`super::live`]. Every SDK
//! call runs on a background thread; the scan's pages are merged by the source layer ([`ScanFeed`]), whose
//! snapshots the thread forwards; the app only drains messages and draws. Read-only: the source layer's calls
//! (ListTables, DescribeTable, Scan; the stream's and CloudWatch's reads), nothing else.

use std::sync::Arc;
use std::time::Duration;
use web_time::Instant;

use super::Command;
use super::error::AppError;
use super::live::{MetricsRequest, WatchRequest};
use super::tasks::{Reporter, Task, TaskError};

use crate::model::KeySet;
use crate::model::design::DesignKeys;
use crate::source::dynamo::{
    ConnectOptions, DEFAULT_MAX_RCU, DEFAULT_SEGMENTS, DynamoClient, DynamoError, MAX_SEGMENTS,
    ScanEvent, ScanFeed, ScanOptions, ScanProgress, ScanSnapshot, Scanned, StreamOptions,
    StreamStart, TableInfo, describe_index, gsi_designs,
};

/// Where to connect, a setting (remembered between runs, saved in sessions): used here under its old path.
pub use super::settings::ConnectSettings;

enum Reply {
    Tables(Vec<String>),
    Described(Box<TableInfo>),
    Failed(DynamoError),
}

impl Reply {
    fn of<T>(result: Result<T, DynamoError>, reply: impl FnOnce(T) -> Self) -> Self {
        result.map_or_else(Reply::Failed, reply)
    }
}

/// How often a live scan's merged keys are shown (each snapshot is a copy of the growing set, made on the
/// scan's thread).
const SNAPSHOT_EVERY: Duration = Duration::from_millis(400);
/// "Last hours of metrics": the hours offered, and the default.
const METRICS_HOURS: std::ops::RangeInclusive<u32> = 1..=72;
const DEFAULT_METRICS_HOURS: u32 = 3;

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
    /// Per global secondary index of the described table (in its order): whether the scan includes it.
    gsis: Vec<bool>,
    /// Watch writes: from new writes on, or the last 24 hours the stream holds.
    watch_from: StreamStart,
    /// Last hours of metrics: how many.
    hours: u32,
    busy: Option<&'static str>,
    /// What went wrong, in the window's words.
    error: Option<String>,
    replies: Option<Task<Reply>>,
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
            gsis: Vec::new(),
            watch_from: StreamStart::Latest,
            hours: DEFAULT_METRICS_HOURS,
            busy: None,
            error: None,
            replies: None,
        }
    }
}

impl ConnectState {
    /// Runs one SDK call on a task of its own; its reply is drained by the dialog.
    fn ask(
        &mut self,
        what: &'static str,
        ctx: &egui::Context,
        f: impl FnOnce() -> Reply + Send + 'static,
    ) {
        self.error = None;
        match Task::spawn("dynamo", ctx, 1, move |r: &Reporter<Reply>| {
            r.send(f());
        }) {
            Ok(task) => {
                self.busy = Some(what);
                self.replies = Some(task);
            }
            Err(e) => {
                self.busy = None;
                self.error = Some(e.to_string());
            }
        }
    }

    /// Lists the tables (the "List tables" button's command).
    pub fn list_tables(&mut self, ctx: &egui::Context, settings: &ConnectSettings) {
        let opts = settings.options();
        self.tables.clear();
        self.info = None;
        self.ask("listing tables", ctx, move || {
            Reply::of(
                DynamoClient::connect(&opts).and_then(|c| c.list_tables()),
                Reply::Tables,
            )
        });
    }

    /// Describes the table picked from the list.
    pub fn describe(&mut self, ctx: &egui::Context, settings: &ConnectSettings, table: String) {
        self.selected = Some(table.clone());
        self.info = None;
        let opts = settings.options();
        self.ask("describing the table", ctx, move || {
            Reply::of(
                DynamoClient::connect(&opts)
                    .and_then(|c| c.describe_table(&table))
                    .map(Box::new),
                Reply::Described,
            )
        });
    }

    /// An SDK call (list tables, describe) is under way.
    pub fn waiting(&self) -> bool {
        self.replies.is_some()
    }

    /// Takes an SDK call's reply, if it came (the app's logic, each frame).
    pub fn drain(&mut self) {
        let Some(task) = &mut self.replies else {
            return;
        };
        let reply = task.drain().pop();
        if reply.is_none() && !task.finished() {
            return;
        }
        self.replies = None;
        self.busy = None;
        match reply {
            Some(Reply::Tables(t)) => {
                self.tables = t;
                if self.tables.is_empty() {
                    self.error = Some("no tables in this account and region".to_owned());
                }
            }
            Some(Reply::Described(info)) => {
                self.gsis = vec![false; info.global_indexes.len()];
                self.info = Some(*info);
            }
            Some(Reply::Failed(e)) => self.error = Some(AppError::from(e).said()),
            None => self.error = Some("the DynamoDB call ended without a reply".to_owned()),
        }
    }
}

/// The dialog window. Returns the SDK calls to start (list the tables, describe one), a scan to start, or the
/// connection fields as edited; the calls' replies come in through [`ConnectState::drain`], in logic.
pub fn connect_ui(
    ctx: &egui::Context,
    state: &mut ConnectState,
    settings: &ConnectSettings,
) -> Vec<Command> {
    let mut commands = Vec::new();
    let mut command = None;
    let mut edited = settings.clone();
    let mut open = state.open;
    egui::Window::new("Connect to DynamoDB")
        .open(&mut open)
        // Wider at will; as tall as its parts up to the screen, then they scroll (a described table's
        // options and its live traffic are taller than a 768-px screen leaves).
        .resizable([true, false])
        .default_width(460.0)
        .show(ctx, |ui| {
            let room = (ctx.content_rect().height() - 120.0).max(240.0);
            egui::ScrollArea::vertical()
                .id_salt("connect-dialog")
                .max_height(room)
                // Taller than the window was: the window grows (up to `room`) rather than scrolling.
                .min_scrolled_height(room)
                .show(ui, |ui| {
                    connection_ui(ui, &mut edited);
                    commands.extend(tables_ui(ui, state, &edited));
                    if let Some(info) = state.info.clone() {
                        ui.separator();
                        let scan = scan_ui(ui, state, &info, &edited);
                        ui.separator();
                        command = scan.or(live_ui(ui, state, &info, &edited));
                    }
                });
        });
    state.open = open && command.is_none();
    if command.is_none() && edited != *settings {
        command = Some(Command::SetConnectSettings(edited));
    }
    commands.extend(command);
    commands
}

fn connection_ui(ui: &mut egui::Ui, settings: &mut ConnectSettings) {
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
}

/// "List tables", the list, and describing the table picked from it: each a command, started by the app.
fn tables_ui(
    ui: &mut egui::Ui,
    state: &ConnectState,
    settings: &ConnectSettings,
) -> Option<Command> {
    let mut command = None;
    ui.horizontal(|ui| {
        let ready = state.busy.is_none();
        if ui
            .add_enabled(ready, egui::Button::new("List tables"))
            .clicked()
        {
            command = Some(Command::ListTables(settings.clone()));
        }
        if let Some(what) = state.busy {
            ui.spinner();
            ui.label(what);
        }
    });
    if let Some(e) = &state.error {
        ui.colored_label(super::theme::ERROR, e);
    }
    if state.tables.is_empty() {
        return command;
    }
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
    picked
        .map(|t| Command::DescribeTable(settings.clone(), t))
        .or(command)
}

/// The described table's keys and the scan's options; "Scan keys" returns the scan to start.
fn scan_ui(
    ui: &mut egui::Ui,
    state: &mut ConnectState,
    info: &TableInfo,
    settings: &ConnectSettings,
) -> Option<Command> {
    ui.label(egui::RichText::new(&info.name).strong());
    ui.label(info.describe_keys());
    table_facts_ui(ui, info);
    ui.horizontal(|ui| {
        let label = ui.label("Segments");
        ui.add(egui::DragValue::new(&mut state.segments).range(1..=MAX_SEGMENTS))
            .labelled_by(label.id);
        let label = ui.label("Max RCU/s");
        ui.add(egui::DragValue::new(&mut state.max_rcu).range(0.0..=1_000_000.0))
            .labelled_by(label.id)
            .on_hover_text("Read units consumed per second over all segments (0 = no cap)");
        let label = ui.label("Sample");
        ui.add(egui::DragValue::new(&mut state.limit).suffix(" items"))
            .labelled_by(label.id)
            .on_hover_text("Stop after this many items (0 = the whole table)");
    });
    ui.horizontal(|ui| {
        ui.checkbox(&mut state.with_sort_key, "Also read the sort key");
        ui.checkbox(&mut state.consistent, "Strongly consistent");
    });
    gsis_ui(ui, state, info);
    let mut command = None;
    if ui.button("Scan keys").clicked() {
        match scan_options(state, info) {
            Ok(scan) => command = Some(Command::Scan(Box::new((settings.options(), scan)))),
            Err(e) => state.error = Some(AppError::from(e).said()),
        }
    }
    ui.weak(
        "Reads only the key attributes (and the included GSIs' keys); never writes. Cancel keeps \
         what was read.",
    );
    command
}

/// The described table's billing, on-demand maximum and warm throughput (the table's and each GSI's), as
/// DescribeTable gave them, and the partitions the warm throughput implies (an inference, said so).
fn table_facts_ui(ui: &mut egui::Ui, info: &TableInfo) {
    ui.label(format!("Capacity: {}", info.describe_capacity()));
    if let Some(n) = info.throughput.implied_partitions() {
        ui.weak(format!(
            "Warm throughput implies at least {} [ours: writes / 1,000 or reads / 3,000, rounded up]",
            crate::model::fmt::plural(n, "partition")
        ));
    }
    for (index, facts) in &info.index_throughput {
        ui.label(format!("GSI {index}: {}", facts.describe()));
    }
}

/// The described table's live traffic: "Watch writes" (its stream; disabled, with how its owner turns one
/// on, when it has none) and "Last hours of metrics" (CloudWatch). Each returns its command.
fn live_ui(
    ui: &mut egui::Ui,
    state: &mut ConnectState,
    info: &TableInfo,
    settings: &ConnectSettings,
) -> Option<Command> {
    let mut command = None;
    ui.label(egui::RichText::new("Live traffic").strong());
    let stream = info.stream_arn.is_some();
    ui.horizontal_wrapped(|ui| {
        ui.label("From");
        ui.radio_value(&mut state.watch_from, StreamStart::Latest, "New writes")
            .on_hover_text("Only what is written from now on");
        ui.radio_value(
            &mut state.watch_from,
            StreamStart::TrimHorizon,
            "Last 24 hours",
        )
        .on_hover_text("Every record the stream still holds, then what is written from now on");
        let watch = ui
            .add_enabled(stream, egui::Button::new("Watch writes"))
            .on_hover_text(
                "Read the table's stream: the keys and the Timeline fill in as writes arrive",
            );
        if watch.clicked() {
            let mut stream = StreamOptions::new(info.name.clone());
            stream.from = state.watch_from;
            command = Some(Command::Watch(Box::new(WatchRequest {
                connect: settings.options(),
                stream,
                info: info.clone(),
            })));
        }
    });
    if !stream {
        let said = AppError::from(DynamoError::NoStream {
            table: info.name.clone(),
        })
        .said();
        ui.colored_label(super::theme::UNKNOWN, said);
    }
    ui.horizontal(|ui| {
        let label = ui.label("Hours");
        ui.add(egui::DragValue::new(&mut state.hours).range(METRICS_HOURS))
            .labelled_by(label.id);
        if ui
            .button("Last hours of metrics")
            .on_hover_text(
                "CloudWatch's minutes (consumed capacity, throttling) replayed in the Timeline on the \
                 table's capacity, with Contributor Insights' top keys when it is on",
            )
            .clicked()
        {
            command = Some(Command::Metrics(Box::new(MetricsRequest {
                connect: settings.options(),
                info: info.clone(),
                hours: state.hours.clamp(*METRICS_HOURS.start(), *METRICS_HOURS.end()),
            })));
        }
    });
    ui.weak(
        "Reads the table's stream or CloudWatch; never writes. Stop keeps what was read; the inspector \
         shows a watched key's live rate.",
    );
    command
}

/// A checkbox per global secondary index: "Include GSI byStatus (status)", "Include GSI byTR
/// (tournamentId+region)" for a multi-attribute key.
fn gsis_ui(ui: &mut egui::Ui, state: &mut ConnectState, info: &TableInfo) {
    state.gsis.resize(info.global_indexes.len(), false);
    for (g, include) in info.global_indexes.iter().zip(&mut state.gsis) {
        let hover = if g.partition_keys.len() > 1 {
            "Also read its key attributes: its own partition spread and capacity. Its partition key is \
             several attributes hashed together in order (a multi-attribute key); an item without one of \
             them is not in the index"
        } else {
            "Also read its key attributes: its own partition spread and capacity"
        };
        ui.checkbox(include, format!("Include GSI {}", describe_index(g)))
            .on_hover_text(hover);
    }
}

/// The scan the dialog's fields describe, with the checked GSIs as its design.
fn scan_options(state: &ConnectState, info: &TableInfo) -> Result<ScanOptions, DynamoError> {
    let mut scan = ScanOptions::new(info.name.clone());
    scan.segments = state.segments;
    scan.max_rcu = (state.max_rcu > 0.0).then_some(state.max_rcu);
    scan.limit = (state.limit > 0).then_some(state.limit);
    scan.with_sort_key = state.with_sort_key && info.sort_key.is_some();
    scan.consistent = state.consistent;
    let wanted: Vec<String> = info
        .global_indexes
        .iter()
        .zip(&state.gsis)
        .filter(|(_, include)| **include)
        .map(|(g, _)| g.name.clone())
        .collect();
    scan.design.gsis = gsi_designs(info, &wanted).map_err(|e| DynamoError::Config(e.into()))?;
    Ok(scan)
}

/// What the scan's thread sends: pages merged so far (a snapshot), progress, and the end.
enum ScanMsg {
    Snapshot(ScanSnapshot),
    Progress(ScanProgress),
    Done(Result<Box<Scanned>, AppError>),
}

/// A scan under way: its thread merges the pages and sends a snapshot of the keys a few times a second.
pub struct ScanJob {
    pub table: String,
    task: Task<ScanMsg>,
    pub progress: Option<ScanProgress>,
    /// The keys of the scan's designs read so far (GSIs: see [`ScanOptions::design`]), updated with each
    /// [`ScanUpdate::Snapshot`]; `None` without a design. The finished scan's are in [`Scanned::designs`].
    pub designs: Option<Arc<[DesignKeys]>>,
}

/// What draining a scan gives the app.
pub enum ScanUpdate {
    /// The keys read so far.
    Snapshot(Arc<KeySet>),
    /// Progress without new keys (a throttled page, a retry).
    Heard,
    Done(Result<Box<Scanned>, AppError>),
}

impl ScanJob {
    pub fn start(
        ctx: &egui::Context,
        connect: ConnectOptions,
        scan: ScanOptions,
    ) -> Result<Self, TaskError> {
        let table = scan.table.clone();
        let task =
            Task::spawn(
                "scan",
                ctx,
                16,
                move |r: &Reporter<ScanMsg>| match DynamoClient::connect(&connect) {
                    Ok(client) => run_scan(&client, &scan, r),
                    Err(e) => {
                        r.send(ScanMsg::Done(Err(e.into())));
                    }
                },
            )?;
        Ok(Self {
            table,
            task,
            progress: None,
            designs: None,
        })
    }

    pub fn cancel(&self) {
        self.task.cancel();
    }

    pub fn drain(&mut self) -> Option<ScanUpdate> {
        let mut update = None;
        for msg in self.task.drain() {
            match msg {
                ScanMsg::Snapshot(ScanSnapshot {
                    keys,
                    designs,
                    progress,
                }) => {
                    self.progress = Some(progress);
                    self.designs = designs;
                    update = Some(ScanUpdate::Snapshot(keys));
                }
                ScanMsg::Progress(progress) => {
                    self.progress = Some(progress);
                    update = update.or(Some(ScanUpdate::Heard));
                }
                ScanMsg::Done(result) => return Some(ScanUpdate::Done(result)),
            }
        }
        if update.is_none() && self.task.finished() {
            return Some(ScanUpdate::Done(Err(AppError::Ended("scan thread"))));
        }
        update
    }
}

/// On the scan's thread: runs the scan's segments, hands their pages to a [`ScanFeed`] (the source layer
/// merges them), and forwards its snapshots a few times a second.
fn run_scan(client: &DynamoClient, scan: &ScanOptions, r: &Reporter<ScanMsg>) {
    let (page_tx, page_rx) = std::sync::mpsc::sync_channel(64);
    std::thread::scope(|s| {
        let pages = std::thread::Builder::new()
            .name("shardlens-scan-pages".to_owned())
            .spawn_scoped(s, move || {
                client.scan_to_channel(scan, r.cancel_flag(), &page_tx);
            });
        if let Err(e) = pages {
            r.send(ScanMsg::Done(Err(TaskError::new("scan-pages", e).into())));
            return;
        }
        let mut feed = ScanFeed::new();
        let mut shown_at: Option<Instant> = None;
        for event in page_rx {
            match event {
                ScanEvent::Page {
                    keys,
                    designs,
                    progress,
                } => feed.add(&keys, designs, progress),
                ScanEvent::Throttled { progress } => r.offer(ScanMsg::Progress(progress)),
                ScanEvent::Done(result) => {
                    r.send(ScanMsg::Done(result.map_err(AppError::from)));
                    return;
                }
            }
            if feed.has_unsent() && shown_at.is_none_or(|t| t.elapsed() >= SNAPSHOT_EVERY) {
                shown_at = Some(Instant::now());
                if let Some(snapshot) = feed.snapshot() {
                    r.send(ScanMsg::Snapshot(snapshot));
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::KeyType;
    use crate::source::dynamo::{Billing, IndexInfo, KeyAttribute};

    #[test]
    fn checked_gsis_become_the_scans_design() {
        let index = |name: &str, pk: &str| IndexInfo {
            name: name.into(),
            partition_keys: vec![pk.into()],
            sort_keys: Vec::new(),
            projection: "ALL".into(),
            included: Vec::new(),
        };
        let info = TableInfo {
            name: "Orders".into(),
            status: "ACTIVE".into(),
            partition_key: KeyAttribute {
                name: "pk".into(),
                key_type: KeyType::S,
            },
            sort_key: None,
            billing: Billing::OnDemand,
            item_count: None,
            size_bytes: None,
            local_indexes: Vec::new(),
            global_indexes: vec![index("byStatus", "status"), index("byDay", "day")],
            stream_arn: None,
            throughput: Default::default(),
            index_throughput: Default::default(),
        };
        let mut state = ConnectState {
            gsis: vec![false, true],
            ..ConnectState::default()
        };
        let scan = scan_options(&state, &info).unwrap();
        let names: Vec<&str> = scan.design.gsis.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["byDay"]);
        assert_eq!(scan.design.roots(), ["day"]);
        state.gsis = vec![false, false];
        assert!(scan_options(&state, &info).unwrap().design.is_empty());
    }
}
