//! The chart in words: the headline above the histogram, and the whole chart in one sentence for those who
//! cannot see it (screen readers through AccessKit on the desktop; a page mirrors it in its text, where its
//! tests read it too).

use super::histogram::HistogramArgs;
use crate::model::Report;
use crate::model::stats::Analysis;

/// One-line summary above the chart.
pub fn headline(a: &Analysis, noun: &str) -> String {
    if a.total == 0 {
        return String::new();
    }
    format!(
        "hottest bucket {} = {:.0} % of {noun} ({:.1}× the mean) · Gini {:.2}",
        a.hottest_bucket,
        a.skew.hottest_bucket_share * 100.0,
        a.skew.max_over_mean,
        a.skew.gini
    )
}

/// Screen readers hear the chart in words ([`in_words`]; AccessKit on the desktop; a page mirrors it in its
/// text too).
pub(super) fn label_for_screen_readers(response: &egui::Response, args: &HistogramArgs<'_>) {
    let words = in_words(args.report, args.noun);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Figure, true, &words));
}

/// The chart in one sentence, for those who cannot see it: the buckets, the keys, the hottest bucket and,
/// when the tree's rule finds one, the hot key ("8 buckets · 5 keys · 12 writes · hottest bucket 3 = 58 % of
/// writes (4.7× the mean) · Gini 0.62 · hot: celebrity, 50 % of writes"). A page mirrors it in its text, where
/// screen readers and the page's tests read it (`app::web`).
pub fn in_words(report: &Report, noun: &str) -> String {
    let a = &report.analysis;
    if a.total == 0 {
        return format!("{} buckets · no keys", a.buckets.len());
    }
    let mut text = format!(
        "{} buckets · {} · {} · {}",
        a.buckets.len(),
        crate::model::fmt::plural(a.distinct as u64, "key"),
        crate::model::fmt::plural(a.total, noun.trim_end_matches('s')),
        headline(a, noun)
    );
    let hot = report
        .heat
        .iter()
        .position(|h| h.heat == crate::model::heat::Heat::Hot);
    match hot.and_then(|b| a.bucket_top.get(b)?.first()) {
        Some(top) => text.push_str(&format!(
            " · hot: {}, {:.0} % of {noun}",
            top.key,
            top.share * 100.0
        )),
        None => text.push_str(" · no hot key"),
    }
    text
}
