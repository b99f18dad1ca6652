//! A replayed trace in the Timeline: the what-ifs that re-run it ([`WhatIf`], drawn here: the row, the provisioned capacity fields, presentation mode's menu), and how its seconds
//! read as real UTC times ([`Clock`]).

use super::{Replay, Simulation, TimelineCommand, WhatIf, clock};
use crate::model::simulate::Setup;

/// How the Timeline says a second: from the start of a scenario (`00:08:12`), or for a replayed trace the
/// real time in UTC (`10:08:12 UTC`, with the date for traces over a day).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Unix seconds of t = 0 for a replay; `None` for a scenario.
    real_start: Option<i64>,
    spans_days: bool,
}

impl Clock {
    /// How `setup`'s run says its seconds: real UTC times when it replays a trace.
    pub(super) fn of(setup: &Setup) -> Self {
        Self {
            real_start: setup.trace.is_some().then_some(setup.start),
            spans_days: setup.duration > 86_400,
        }
    }

    /// A second in words, with " UTC" for a replay.
    pub fn at(self, t: u32) -> String {
        match self.real_start {
            None => clock(t),
            Some(_) => format!("{} UTC", self.axis(t)),
        }
    }

    /// A second as an axis label: the clock, without the zone (the axis says it once).
    pub fn axis(self, t: u32) -> String {
        let Some(start) = self.real_start else {
            return clock(t);
        };
        let iso = crate::model::trace::iso(start + i64::from(t));
        // 2026-06-23T10:08:12Z: the time, and the month and day when the trace spans days.
        let time = iso.get(11..19).unwrap_or_default();
        if self.spans_days {
            format!("{} {time}", iso.get(5..10).unwrap_or_default())
        } else {
            time.to_owned()
        }
    }
}

/// The What if choices, in the order they are offered.
const WHAT_IFS: [WhatIf; 4] = [
    WhatIf::AsRecorded,
    WhatIf::Sharded(10),
    WhatIf::OnDemand,
    WhatIf::TwiceCapacity,
];

/// A replay's What if row: the same trace sharded, on-demand, with twice the capacity, or as recorded; the
/// run shown is selected.
pub(super) fn what_if_ui(ui: &mut egui::Ui, sim: &Simulation, out: &mut Vec<TimelineCommand>) {
    let Some(replay) = sim.replay() else {
        return;
    };
    ui.horizontal_wrapped(|ui| {
        ui.label("What if:");
        for w in WHAT_IFS {
            if ui
                .selectable_label(replay.what_if == w, w.label())
                .clicked()
                && replay.what_if != w
            {
                out.push(TimelineCommand::WhatIf(w));
            }
        }
        ui.separator();
        provisioned_ui(ui, sim, replay, out);
    });
}

/// The replay on a provisioned table of the capacity typed here (kept between frames in egui's memory,
/// starting from the run's own provisioned units, else 1,000 each).
fn provisioned_ui(
    ui: &mut egui::Ui,
    sim: &Simulation,
    replay: &Replay,
    out: &mut Vec<TimelineCommand>,
) {
    let id = egui::Id::unique("timeline-what-if-capacity");
    let start = match &sim.setup.table.billing {
        crate::model::simulate::Billing::Provisioned { units } => {
            [units[0].round() as u32, units[1].round() as u32]
        }
        crate::model::simulate::Billing::OnDemand { .. } => [1_000, 1_000],
    };
    let mut units = ui.data_mut(|d| *d.get_temp_mut_or(id, start));
    ui.label("Provisioned");
    ui.add(
        egui::DragValue::new(&mut units[0])
            .range(1..=40_000_000)
            .speed(50.0),
    )
    .on_hover_text("read capacity units");
    ui.label("RCU");
    ui.add(
        egui::DragValue::new(&mut units[1])
            .range(1..=40_000_000)
            .speed(50.0),
    )
    .on_hover_text("write capacity units");
    ui.label("WCU");
    ui.data_mut(|d| d.insert_temp(id, units));
    let w = WhatIf::Provisioned {
        rcu: units[0],
        wcu: units[1],
    };
    let shown = matches!(replay.what_if, WhatIf::Provisioned { .. });
    if ui
        .selectable_label(shown && replay.what_if == w, "Replay provisioned")
        .on_hover_text("replay the trace on a provisioned table of this capacity")
        .clicked()
        && replay.what_if != w
    {
        out.push(TimelineCommand::WhatIf(w));
    }
}

/// Presentation mode's What if: the same choices as the row, in a menu named after the run shown.
pub(super) fn what_if_menu_ui(ui: &mut egui::Ui, sim: &Simulation, out: &mut Vec<TimelineCommand>) {
    let Some(replay) = sim.replay() else {
        return;
    };
    // The run shown is the title's (", what if: …") and the menu's selected choice.
    ui.menu_button("What if", |ui| {
        for w in WHAT_IFS {
            if ui
                .selectable_label(replay.what_if == w, w.label())
                .clicked()
            {
                if replay.what_if != w {
                    out.push(TimelineCommand::WhatIf(w));
                }
                ui.close();
            }
        }
    });
}
