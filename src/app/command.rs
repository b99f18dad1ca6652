//! One way for panels to ask: every panel and menu returns [`Command`]s, which the app applies once per frame
//! after drawing ([`super::App::apply`]). The commands a user can reach from a menu or a shortcut are the
//! [`UICommand`] table, which carries each one's label, tooltip and shortcuts: the menus, the shortcut handler
//! and the Help window are loops over it (as rerun's `UICommand` is), so they cannot disagree.

use egui::{Key, KeyboardShortcut, Modifiers};

use super::file_action::PathJob;
use super::notices::Activity;
use super::settings::{ChartMode, ConnectSettings, Settings};
use super::what_if::WhatIf;
use crate::model::KeyType;
use crate::model::decision::{Action, Question, UserAnswers};
use crate::model::examples::keys::KeyExample;
use crate::model::simulate::Point;
use crate::source::LoadOptions;
use crate::source::dynamo::{ConnectOptions, ScanOptions};

/// What a control changed of the view settings.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingChange {
    Buckets(usize),
    LogScale(bool),
    ShardEnabled(bool),
    /// The shard plan: shards, strategy, scope, separator.
    Shard(crate::model::shard::ShardPlan),
    WorkloadEnabled(bool),
    Workload(crate::model::capacity::Workload),
}

impl SettingChange {
    /// The changes that take `before` to `after` (the fields the controls edit).
    pub fn between(before: &Settings, after: &Settings) -> Vec<Self> {
        let mut changes = Vec::new();
        if after.buckets != before.buckets {
            changes.push(Self::Buckets(after.buckets));
        }
        if after.log_scale != before.log_scale {
            changes.push(Self::LogScale(after.log_scale));
        }
        if after.shard_enabled != before.shard_enabled {
            changes.push(Self::ShardEnabled(after.shard_enabled));
        }
        if after.shard != before.shard {
            changes.push(Self::Shard(after.shard.clone()));
        }
        if after.workload_enabled != before.workload_enabled {
            changes.push(Self::WorkloadEnabled(after.workload_enabled));
        }
        if after.workload != before.workload {
            changes.push(Self::Workload(after.workload.clone()));
        }
        changes
    }

    /// Makes the change in `settings`.
    pub fn apply(self, settings: &mut Settings) {
        match self {
            Self::Buckets(n) => settings.buckets = n,
            Self::LogScale(on) => settings.log_scale = on,
            Self::ShardEnabled(on) => settings.shard_enabled = on,
            Self::Shard(plan) => settings.shard = plan,
            Self::WorkloadEnabled(on) => settings.workload_enabled = on,
            Self::Workload(w) => settings.workload = w,
        }
    }
}

/// What a panel asks the app to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// A menu or shortcut command.
    Ui(UICommand),
    LoadExample(KeyExample),
    /// A time simulation from Examples > Over time.
    LoadSimulation(crate::model::examples::time::Example),
    /// Open a share link (File > Open link…, a link pasted into the editor).
    OpenLink(String),
    /// The article widget's "Open in shardlens": the full page on the same keys and view.
    OpenFullPage,
    /// Replay a trace (a file or a folder of them) in the Timeline (File > Open trace…'s path).
    OpenTrace(std::path::PathBuf),
    /// An answer to the tree about the simulated scenario.
    SimulationAnswer(Question, Option<bool>),
    /// The tree's fix for the simulated scenario: run it again with its hot keys write-sharded.
    ShardSimulation(Action),
    /// A Timeline control (play, speed, the playhead, the scale, the picked partition) for the simulation.
    Timeline(TimelineCommand),
    Answer(Question, Option<bool>),
    /// The table facts of the workload group (the tree's answers about the table).
    SetAnswers(UserAnswers),
    Apply(Action),
    Copy(String),
    EditAsText,
    /// The editor's text after the user typed.
    EditText(String),
    /// The key type the user chose; the keys are read again as that type (or it reverts, with a notice).
    SetKeyType(KeyType),
    /// A view setting a control changed (buckets, scale, sharding, the workload): what changed, not the
    /// whole settings.
    Set(SettingChange),
    SetChart(ChartMode),
    SetLoadOptions(Box<LoadOptions>),
    /// File > Load options > Keep these options for the next files.
    KeepLoadOptions(bool),
    SetConnectSettings(ConnectSettings),
    /// The Connect dialog's "List tables", with the connection as it is in the dialog.
    ListTables(ConnectSettings),
    /// The Connect dialog's pick of a table to describe.
    DescribeTable(ConnectSettings, String),
    Connect,
    Scan(Box<(ConnectOptions, ScanOptions)>),
    CancelScan,
    /// The Connect dialog's "Watch writes": the table's stream, live.
    Watch(Box<super::live::WatchRequest>),
    /// Stop the watch under way; what was read stays.
    StopWatch,
    /// The Connect dialog's "Last hours of metrics": CloudWatch's minutes replayed in the Timeline.
    Metrics(Box<super::live::MetricsRequest>),
    CancelLoad,
    /// Reload a file that holds several tables with one of them.
    OpenTable(std::path::PathBuf, String),
    CloseTablePicker,
    /// The path field confirmed a path: check and use it off the UI thread.
    FinishPath(Box<PathJob>),
    DismissNotice(Activity),
    /// Presentation mode: show or hide the editor and the tree beside the chart.
    ToggleSidePanels,
    /// A Key design box was edited: a candidate (0–2) or the GSI (3).
    EditDesign(usize, String),
    /// Re-key the data by the shown comparison's candidate `n` (0-based among its rows after the current).
    UseDesign(usize),
    /// Examples > Key design.
    LoadDesignExample(crate::model::examples::design::DesignScenario),
    /// Select a key, as displayed, in the partition inspector (Table health's example keys).
    InspectKey(String),
}

impl From<UICommand> for Command {
    fn from(c: UICommand) -> Self {
        Self::Ui(c)
    }
}

/// The menus of the menu bar that list [`UICommand`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Menu {
    File,
    Edit,
    View,
}

/// A command a user reaches from a menu or a shortcut, with its label, tooltip and shortcuts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UICommand {
    OpenFile,
    OpenFolder,
    Reload,
    Connect,
    OpenSession,
    SaveSession,
    OpenLink,
    CopyLink,
    OpenScenario,
    SaveScenario,
    OpenTrace,
    ExportPng,
    ExportCsv,
    ExportJson,
    Quit,
    Undo,
    Paste,
    ToggleShard,
    CopyConditions,
    TogglePresentation,
    ToggleLogScale,
    ToggleHealth,
}

impl UICommand {
    /// Every command, in menu order.
    pub const ALL: [Self; 22] = [
        Self::OpenFile,
        Self::OpenFolder,
        Self::Reload,
        Self::Connect,
        Self::OpenSession,
        Self::SaveSession,
        Self::OpenLink,
        Self::CopyLink,
        Self::OpenScenario,
        Self::SaveScenario,
        Self::OpenTrace,
        Self::ExportPng,
        Self::ExportCsv,
        Self::ExportJson,
        Self::Quit,
        Self::Undo,
        Self::Paste,
        Self::ToggleShard,
        Self::CopyConditions,
        Self::TogglePresentation,
        Self::ToggleLogScale,
        Self::ToggleHealth,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Self::OpenFile => "Open keys…",
            Self::OpenFolder => "Open S3 export folder…",
            Self::Reload => "Reload file",
            Self::Connect => "Connect to DynamoDB…",
            Self::OpenSession => "Open session…",
            Self::SaveSession => "Save session…",
            Self::OpenLink => "Open link…",
            Self::CopyLink => "Copy link",
            Self::OpenScenario => "Open scenario…",
            Self::SaveScenario => "Save scenario…",
            Self::OpenTrace => "Open trace…",
            Self::ExportPng => "Export chart as PNG…",
            Self::ExportCsv => "Export buckets as CSV…",
            Self::ExportJson => "Export buckets as JSON…",
            Self::Quit => "Quit",
            Self::Undo => "Undo",
            Self::Paste => "Paste keys",
            Self::ToggleShard => "Shard hot keys",
            Self::CopyConditions => "Copy key conditions",
            Self::TogglePresentation => "Presentation mode",
            Self::ToggleLogScale => "Log scale",
            Self::ToggleHealth => "Table health",
        }
    }

    /// What it does, for tooltips and the Help window.
    pub fn tooltip(self) -> &'static str {
        match self {
            Self::OpenFile => {
                "open a file of keys: lines, CSV, DynamoDB JSON, Ion, scan output, a Workbench model"
            }
            Self::OpenFolder => "open the folder of an S3 export (full or incremental)",
            Self::Reload => {
                "read the last opened file or folder again, with the current Load options"
            }
            Self::Connect => "list, describe and scan a live table (read-only, rate-capped)",
            Self::OpenSession => "open keys and every setting saved as a session",
            Self::SaveSession => "save the keys and every setting as a session",
            Self::OpenLink => {
                "open a shardlens share link (its keys and view; Undo brings your keys back)"
            }
            Self::CopyLink => {
                "copy a link that opens these keys and this view in shardlens in the browser or the app: \
                 the keys travel in the link itself, never to a server"
            }
            Self::OpenScenario => "simulate a scenario file (TOML) over time in the Timeline",
            Self::SaveScenario => {
                "save the Timeline's run as a scenario file (TOML) to edit and share; a replay saves one that names its trace"
            }
            Self::OpenTrace => {
                "replay a table's real traffic in the Timeline: DynamoDB Streams records, an incremental \
                 export, Contributor Insights, CloudWatch metrics or a request log"
            }
            Self::ExportPng => "save the chart as a PNG image",
            Self::ExportCsv => "save each bucket's count and hash range as CSV",
            Self::ExportJson => "save the report and the decision path as JSON",
            Self::Quit => "close shardlens",
            Self::Undo => "bring back keys an example, file, session or scan replaced",
            Self::Paste => "paste keys (outside a text field)",
            Self::ToggleShard => "shard hot keys on or off",
            Self::CopyConditions => "copy the key conditions of the sharded key",
            Self::TogglePresentation => "large text and the chart as the hero, for a projector",
            Self::ToggleLogScale => "a logarithmic count axis",
            Self::ToggleHealth => {
                "beside the partition inspector: storage, item sizes, the TTL attribute and GSI costs, with \
                 findings"
            }
        }
    }

    /// Its shortcuts, the first one shown in menus (`Ctrl` is `Cmd` on a Mac).
    pub fn shortcuts(self) -> &'static [KeyboardShortcut] {
        const fn cmd(key: Key) -> KeyboardShortcut {
            KeyboardShortcut::new(Modifiers::COMMAND, key)
        }
        const OPEN: [KeyboardShortcut; 1] = [cmd(Key::O)];
        const SAVE: [KeyboardShortcut; 1] = [cmd(Key::S)];
        const RELOAD: [KeyboardShortcut; 2] =
            [cmd(Key::R), KeyboardShortcut::new(Modifiers::NONE, Key::F5)];
        const UNDO: [KeyboardShortcut; 1] = [cmd(Key::Z)];
        const PASTE: [KeyboardShortcut; 1] = [cmd(Key::V)];
        const SHARD: [KeyboardShortcut; 1] = [cmd(Key::K)];
        const COPY: [KeyboardShortcut; 1] = [KeyboardShortcut::new(
            Modifiers {
                shift: true,
                ..Modifiers::COMMAND
            },
            Key::C,
        )];
        const PRESENT: [KeyboardShortcut; 2] = [
            KeyboardShortcut::new(Modifiers::NONE, Key::F11),
            cmd(Key::Equals),
        ];
        match self {
            Self::OpenFile => &OPEN,
            Self::Reload => &RELOAD,
            Self::SaveSession => &SAVE,
            Self::Undo => &UNDO,
            Self::Paste => &PASTE,
            Self::ToggleShard => &SHARD,
            Self::CopyConditions => &COPY,
            Self::TogglePresentation => &PRESENT,
            _ => &[],
        }
    }

    /// The menu that lists it, and the group within the menu (a separator between groups).
    pub fn menu(self) -> (Menu, u8) {
        match self {
            Self::OpenFile | Self::OpenFolder | Self::Reload | Self::Connect => (Menu::File, 0),
            Self::OpenSession | Self::SaveSession | Self::OpenLink | Self::CopyLink => {
                (Menu::File, 1)
            }
            Self::OpenScenario | Self::SaveScenario | Self::OpenTrace => (Menu::File, 2),
            Self::ExportPng | Self::ExportCsv | Self::ExportJson => (Menu::File, 3),
            Self::Quit => (Menu::File, 4),
            Self::Undo | Self::Paste => (Menu::Edit, 0),
            Self::ToggleShard | Self::CopyConditions => (Menu::Edit, 1),
            Self::TogglePresentation | Self::ToggleLogScale => (Menu::View, 0),
            Self::ToggleHealth => (Menu::View, 1),
        }
    }

    /// Why the command cannot run here: in a page, live reads and quitting (docs/web.md, "What runs where");
    /// `None` where it can.
    pub fn unavailable(self) -> Option<&'static str> {
        #[cfg(target_arch = "wasm32")]
        match self {
            Self::Connect => Some(crate::source::dynamo::LIVE_READS_IN_A_PAGE),
            Self::Quit => Some("a page closes with its tab"),
            _ => None,
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let _ = self;
            None
        }
    }

    /// Whether the shortcut also works while a text field has the focus (there Ctrl+Z and Ctrl+V are the
    /// field's own).
    pub fn while_typing(self) -> bool {
        !matches!(self, Self::Undo | Self::Paste)
    }

    /// The shortcuts as text ("Ctrl+O"; "F11, Ctrl+=").
    pub fn shortcut_text(self, ctx: &egui::Context) -> String {
        self.shortcuts()
            .iter()
            .map(|s| ctx.format_shortcut(s))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_shortcut_is_given_twice() {
        let mut seen = std::collections::HashSet::new();
        for c in UICommand::ALL {
            for s in c.shortcuts() {
                assert!(
                    seen.insert((s.modifiers, s.logical_key)),
                    "{c:?} repeats {s:?}"
                );
            }
        }
    }

    #[test]
    fn every_command_is_listed_once() {
        let set: std::collections::HashSet<_> = UICommand::ALL.iter().collect();
        assert_eq!(set.len(), UICommand::ALL.len());
        assert!(
            UICommand::ALL
                .iter()
                .all(|c| !c.label().is_empty() && !c.tooltip().is_empty())
        );
    }
}

/// What the Timeline's controls ask of the simulation. The view returns them (as
/// [`Command::Timeline`]) and the app applies them after drawing with [`Simulation::apply`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimelineCommand {
    /// Play, or pause (Play at the end starts again from the beginning).
    TogglePlay,
    /// Simulated seconds per second of playback (one of [`SPEEDS`]).
    Speed(f64),
    /// Move the playhead to a second (the scrubber; a click on the heatmap, with [`Self::Pick`]).
    Seek(u32),
    /// Show a moment (a finding or an event was clicked): move the playhead there, pause, and pick the
    /// partition when the moment names one (`None` keeps the pick).
    Show { t: u32, partition: Option<Point> },
    /// Colour the heatmap by the run's hottest cell (`true`) or by the partition limit.
    Relative(bool),
    /// The line chart's CloudWatch per-minute view (`true`) or every second.
    PerMinute(bool),
    /// Pick a partition range (by its start) for the inspector; `None`: the hottest at the playhead.
    Pick(Option<Point>),
    /// Replay the trace again, changed as this says (the app starts the new run).
    WhatIf(WhatIf),
}
