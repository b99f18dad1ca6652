//! The status line's notice and the Messages menu: how the app's notices ([`super::notices`]) are drawn.

use web_time::Instant;

use super::notices::{Level, Notice, Notices, headline};

fn colored(n: &Notice) -> egui::RichText {
    let text = egui::RichText::new(&n.text);
    match n.level {
        Level::Error => text.color(super::theme::ERROR),
        Level::Warning => text.color(super::theme::UNKNOWN),
        Level::Info => text,
    }
}

/// The status line's notice (one line, cut with "…" and whole on hover, with a dismiss button for
/// warnings and errors) and "Messages (N)": the history, newest first, with each notice's detail. The
/// status bar never grows past one line: other current notices are counted in Messages.
pub fn notices_ui(
    ui: &mut egui::Ui,
    notices: &Notices,
    now: Instant,
    commands: &mut Vec<super::Command>,
) {
    let count = notices.history().count();
    if count > 0 {
        let others = notices.visible(now).count().saturating_sub(1);
        let title = if others > 0 {
            format!("Messages ({count}, {others} more now)")
        } else {
            format!("Messages ({count})")
        };
        ui.menu_button(title, |ui| {
            egui::ScrollArea::vertical()
                .max_height(300.0)
                .show(ui, |ui| {
                    for n in notices.history().rev() {
                        ui.label(colored(n));
                        // At the body's size: a replay's assumptions are read here, not glanced at.
                        if let Some(d) = &n.detail {
                            ui.label(egui::RichText::new(d).weak());
                        }
                    }
                });
        });
    }
    let Some(n) = headline(notices, now) else {
        return;
    };
    ui.separator();
    if n.level > Level::Info
        && ui
            .small_button("×")
            .on_hover_text("Dismiss this message")
            .clicked()
    {
        commands.push(super::Command::DismissNotice(n.activity));
    }
    // Cut to the line; egui shows the whole text on hover.
    ui.add(egui::Label::new(colored(n)).truncate());
}
