//! A saved trace cut short: `stream --save-trace` killed while it wrote, or its disk full. A save writes one
//! JSON value per line, a page of records at a time ([`super::TraceSaver`]); a cut can only leave its last
//! line unfinished. The rule ([`whole_records`]), for the JSON formats (Streams records, incremental
//! exports, CloudWatch metrics, Contributor Insights reports; not request logs, whose CSV rows are not JSON):
//!
//! - the file's **final line** has no newline after it,
//! - it is not a JSON value by itself, and
//! - everything before it is whole JSON values;
//!
//! then that line is an unfinished record: it is ignored, and the file says how many bytes it ignored
//! ([`super::TraceFile::ignored_tail`]). Anything else is read as it is: a malformed line anywhere else, or a
//! pretty-printed document cut in its middle, stays the error it was. A file is never silently misread.

use serde::de::IgnoredAny;

/// The bytes of a file to read, and how many trailing bytes to ignore as an unfinished last record (see the
/// module docs; 0 when nothing is ignored).
pub(crate) fn whole_records(bytes: &[u8]) -> (&[u8], u64) {
    let start = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
    let (kept, last) = bytes.split_at(start);
    if last.iter().all(u8::is_ascii_whitespace) || is_one_value(last) {
        return (bytes, 0);
    }
    let whole = serde_json::Deserializer::from_slice(kept)
        .into_iter::<IgnoredAny>()
        .all(|v| v.is_ok());
    if whole {
        (kept, last.len() as u64)
    } else {
        (bytes, 0)
    }
}

fn is_one_value(line: &[u8]) -> bool {
    serde_json::from_slice::<IgnoredAny>(line).is_ok()
}

/// What a file says of the bytes it ignored: "ignored 37 trailing bytes (an unfinished last record: the save
/// was cut)".
pub(crate) fn ignored_note(bytes: u64) -> String {
    format!(
        "ignored {} (an unfinished last record: the save was cut)",
        trailing(bytes)
    )
}

/// What a file that holds nothing but an unfinished record says.
pub(crate) fn nothing_whole(bytes: u64) -> String {
    format!(
        "holds no whole record: its {} are one unfinished record (the save was cut before its first record \
         was written whole)",
        crate::model::fmt::plural(bytes, "byte")
    )
}

fn trailing(bytes: u64) -> String {
    format!(
        "{} trailing byte{}",
        crate::model::fmt::grouped(bytes),
        if bytes == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = r#"{"eventName":"INSERT","dynamodb":{"ApproximateCreationDateTime":1782208800,"Keys":{"pk":{"S":"A"}}}}"#;
    const B: &str = r#"{"eventName":"INSERT","dynamodb":{"ApproximateCreationDateTime":1782208801,"Keys":{"pk":{"S":"B"}}}}"#;

    #[test]
    fn a_whole_file_is_read_as_it_is() {
        let text = format!("{A}\n{B}\n");
        assert_eq!(whole_records(text.as_bytes()), (text.as_bytes(), 0));
        // The last record without its newline is whole all the same.
        let text = format!("{A}\n{B}");
        assert_eq!(whole_records(text.as_bytes()), (text.as_bytes(), 0));
        // Trailing spaces are nothing.
        let text = format!("{A}\n{B}\n  ");
        assert_eq!(whole_records(text.as_bytes()), (text.as_bytes(), 0));
    }

    #[test]
    fn a_file_cut_in_its_last_record_keeps_the_records_before() {
        let text = format!("{A}\n{B}\n");
        for cut in 1..B.len() {
            let bytes = &text.as_bytes()[..A.len() + 1 + cut];
            let (kept, ignored) = whole_records(bytes);
            assert_eq!(kept, format!("{A}\n").as_bytes(), "cut {cut}");
            assert_eq!(ignored, cut as u64);
        }
        // Cut exactly at a newline: nothing is unfinished.
        let at_newline = &text.as_bytes()[..=A.len()];
        assert_eq!(whole_records(at_newline), (at_newline, 0));
        // Cut in the first record: nothing whole, all of it ignored (the reader says so).
        assert_eq!(whole_records(&A.as_bytes()[..10]), (&b""[..], 10));
    }

    #[test]
    fn a_malformed_line_before_the_last_is_not_forgiven() {
        // A bad middle line and an unfinished last one: read as it is (the middle line's error).
        let text = format!("{A}\n{{\"broken\n{}", &B[..20]);
        assert_eq!(whole_records(text.as_bytes()), (text.as_bytes(), 0));
        // A pretty-printed page cut in its middle is not a cut save of lines.
        let page = format!("{{\"Records\":[\n {A},\n {}", &B[..30]);
        assert_eq!(whole_records(page.as_bytes()), (page.as_bytes(), 0));
        // A malformed last line that ends with a newline is an error, not a cut.
        let text = format!("{A}\n{}\n", &B[..30]);
        assert_eq!(whole_records(text.as_bytes()), (text.as_bytes(), 0));
    }

    /// Every reader of a trace (`simulate --trace`, File > Open trace…, a dropped file) goes through the same
    /// door: the whole records are read, the ignored bytes said; a bad middle line is still an error.
    #[test]
    fn a_cut_save_reads_to_its_last_whole_record_and_says_what_it_ignored() {
        use crate::source::trace::{TraceOptions, load_trace_bytes};
        let read = |text: &str| {
            load_trace_bytes(
                &[("saved.jsonl".into(), text.as_bytes())],
                &TraceOptions::default(),
            )
        };
        let cut = format!("{A}\n{B}\n{}", &A[..37]);
        let load = read(&cut).unwrap();
        assert_eq!(load.files[0].records, 2);
        assert_eq!(load.files[0].ignored_tail, 37);
        assert_eq!(
            load.files[0].tail_note().unwrap(),
            "ignored 37 trailing bytes (an unfinished last record: the save was cut)"
        );
        let whole = read(&format!("{A}\n{B}\n")).unwrap();
        assert_eq!(
            (whole.files[0].records, whole.files[0].ignored_tail),
            (2, 0)
        );
        assert_eq!(whole.files[0].tail_note(), None);
        assert_eq!(whole.trace, load.trace, "the same records, the same trace");
        let e = read(&format!("{A}\n{{\"eventName\":,}}\n{B}\n{}", &A[..37]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("not JSON"), "{e}");
        let e = read(&A[..37]).unwrap_err().to_string();
        assert!(e.contains("holds no whole record: its 37 bytes"), "{e}");
    }

    #[test]
    fn the_notes_say_the_bytes() {
        assert_eq!(
            ignored_note(37),
            "ignored 37 trailing bytes (an unfinished last record: the save was cut)"
        );
        assert_eq!(
            ignored_note(1),
            "ignored 1 trailing byte (an unfinished last record: the save was cut)"
        );
        assert!(nothing_whole(12).contains("its 12 bytes are one unfinished record"));
    }
}
