//! Every colour the app uses, in one place. Hot means what the decision tree means by it: one key holds a
//! bucket at least twice the mean (see `model::heat`), or, on the capacity chart, a partition over its limit.
//! The text sizes of presentation mode are here too ([`set_presentation_style`]).

use egui::Color32;

/// An even bucket.
pub const COOL: Color32 = Color32::from_rgb(0x3b, 0x82, 0xc4);
/// Uneven: well above the mean, but no one key makes it so (or shards of one key collide).
pub const WARM: Color32 = Color32::from_rgb(0xe0, 0x9a, 0x2b);
/// The hot partition: one key holds a bucket at least twice the mean.
pub const HOT: Color32 = Color32::from_rgb(0xd6, 0x3a, 0x2f);
/// Throttling at the table's or the account's limit (CloudWatch's Provisioned, AccountLimit and MaxOnDemand
/// reasons): not one partition, so sharding cannot help.
pub const TABLE_LIMIT: Color32 = Color32::from_rgb(0x8e, 0x4f, 0xb8);
/// The unsharded distribution drawn behind the sharded one.
pub const GHOST: Color32 = Color32::from_rgba_premultiplied(0x70, 0x70, 0x70, 0x50);
/// The ghost colour as an opaque swatch for the legend.
pub const GHOST_SWATCH: Color32 = Color32::from_rgb(0x9a, 0x9a, 0x9a);
/// The outline of the bar under the pointer.
pub const OUTLINE: Color32 = Color32::from_rgb(0x20, 0x20, 0x20);
/// The path taken through the decision tree.
pub const PATH: Color32 = Color32::from_rgb(0x2f, 0x9e, 0x5b);
/// A question the data cannot answer.
pub const UNKNOWN: Color32 = Color32::from_rgb(0xb0, 0x86, 0x1a);
/// Errors in the status bar and editor.
pub const ERROR: Color32 = Color32::from_rgb(0xd6, 0x3a, 0x2f);

/// A Table health finding's marker: errors as hot as a hot partition, warnings warm, information cool.
pub fn severity(s: crate::model::health::Severity) -> Color32 {
    use crate::model::health::Severity;
    match s {
        Severity::Error => ERROR,
        Severity::Warning => WARM,
        Severity::Info => COOL,
    }
}

/// Text sizes in presentation mode, in points (readable from the back of a room; the smallest text is
/// 18 px at 1 px per point).
const PRESENTATION_TEXT: [(egui::TextStyle, f32); 5] = [
    (egui::TextStyle::Small, 18.0),
    (egui::TextStyle::Body, 21.0),
    (egui::TextStyle::Button, 21.0),
    (egui::TextStyle::Monospace, 19.0),
    (egui::TextStyle::Heading, 30.0),
];

/// Larger text for projectors: every text style at least 18 px, and roomier widgets; the normal sizes when
/// `on` is false. The chart's own text (axes, tooltips) follows the styles.
pub fn set_presentation_style(ctx: &egui::Context, on: bool) {
    let base = egui::Style::default();
    ctx.all_styles_mut(|style| {
        style.text_styles = base.text_styles.clone();
        style.spacing = base.spacing.clone();
        if on {
            for (text_style, size) in PRESENTATION_TEXT {
                if let Some(font) = style.text_styles.get_mut(&text_style) {
                    font.size = size;
                }
            }
            style.spacing.interact_size *= 1.6;
            style.spacing.button_padding *= 1.5;
            style.spacing.item_spacing *= 1.4;
        }
    });
}
