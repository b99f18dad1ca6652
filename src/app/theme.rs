//! Every colour the app uses, in one place. Hot means over the partition's fair share.

use egui::Color32;

/// A bucket at or below the mean.
pub const COOL: Color32 = Color32::from_rgb(0x3b, 0x82, 0xc4);
/// Above the mean, below twice the mean.
pub const WARM: Color32 = Color32::from_rgb(0xe0, 0x9a, 0x2b);
/// Twice the mean or more: the hot partition.
pub const HOT: Color32 = Color32::from_rgb(0xd6, 0x3a, 0x2f);
/// The unsharded distribution drawn behind the sharded one.
pub const GHOST: Color32 = Color32::from_rgba_premultiplied(0x70, 0x70, 0x70, 0x50);
/// The path taken through the decision tree.
pub const PATH: Color32 = Color32::from_rgb(0x2f, 0x9e, 0x5b);
/// A question the data cannot answer.
pub const UNKNOWN: Color32 = Color32::from_rgb(0xb0, 0x86, 0x1a);
/// Errors in the status bar and editor.
pub const ERROR: Color32 = Color32::from_rgb(0xd6, 0x3a, 0x2f);

/// The colour of a bucket by its count over the mean bucket.
pub fn heat(ratio: f64) -> Color32 {
    if ratio >= 2.0 {
        HOT
    } else if ratio > 1.0 {
        WARM
    } else {
        COOL
    }
}
