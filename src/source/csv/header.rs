//! Whether a CSV file's first row is a header or data, when neither `--csv-header` nor `--csv-columns` says:
//! judged from the rows below it ([`first_row_is_data`]).

use crate::source::json::item::{PK_NAMES, SK_NAMES};

/// Rows below the first that [`first_row_is_data`] compares it with.
pub(super) const SAMPLE_ROWS: usize = 20;

/// Whether a CSV file's first row (`first`, trimmed cells) is data rather than a header, judged from the rows
/// below it (`below`, up to [`SAMPLE_ROWS`]), in the spirit of Python's `csv.Sniffer.has_header`: each column
/// whose cells below share a shape votes. Numbers below and a number above: data; text above numbers: header.
/// The same prefix below (`USER#`, `e-`, `u` before digits): data when the first cell has it too, else header.
/// The same length below (dates, UUIDs, codes): data when the first cell is as long, else header. A first cell
/// that is also a value below (a state, a status) votes data. A row naming a key column (`pk`, `id`, `sk`,
/// `count`, …) is a header; a row repeating a name is data. Ties (all-text rows of no common shape) stay
/// with a header, as before this check existed; `--csv-header` overrides it.
pub(super) fn first_row_is_data(first: &[String], below: &[Vec<String>]) -> bool {
    if below.is_empty() {
        return false;
    }
    let named_like_a_key = |c: &str| {
        PK_NAMES
            .iter()
            .chain(SK_NAMES.iter())
            .chain(std::iter::once(&"count"))
            .any(|n| n.eq_ignore_ascii_case(c))
    };
    if first.iter().any(|c| named_like_a_key(c)) {
        return false;
    }
    let mut seen = std::collections::HashSet::new();
    if first
        .iter()
        .filter(|c| !c.is_empty())
        .any(|c| !seen.insert(c.as_str()))
    {
        return true;
    }
    let votes: i32 = first
        .iter()
        .enumerate()
        .filter(|(_, head)| !head.is_empty())
        .map(|(j, head)| {
            let cells: Vec<&str> = below
                .iter()
                .filter_map(|r| r.get(j))
                .map(String::as_str)
                .filter(|c| !c.is_empty())
                .collect();
            column_vote(head, &cells)
        })
        .sum();
    votes < 0
}

/// One column's vote: -1 the first cell `head` is shaped like the `cells` below it, 1 it is not, 0 no shape.
fn column_vote(head: &str, cells: &[&str]) -> i32 {
    let Some(&one) = cells.first() else {
        return 0;
    };
    let vote = |data: bool| if data { -1 } else { 1 };
    if cells.iter().all(|c| is_number(c)) {
        return vote(is_number(head));
    }
    if let Some(p) = prefix(one)
        && cells.iter().all(|c| prefix(c) == Some(p))
    {
        return vote(prefix(head) == Some(p));
    }
    let len = one.chars().count();
    if cells.len() > 1 && cells.iter().all(|c| c.chars().count() == len) {
        return vote(head.chars().count() == len);
    }
    if cells.contains(&head) {
        return -1;
    }
    0
}

/// A number as CSV writes one (`42`, `-1.5`, `1e3`; not `NaN` or `inf`, which could be names).
fn is_number(cell: &str) -> bool {
    cell.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.'))
        && cell.parse::<f64>().is_ok_and(f64::is_finite)
}

/// A key-like prefix: up to and with the first separator (`USER#`, `e-`, `tenant:`), or the letters before a
/// digit (`u` of `u123`).
fn prefix(cell: &str) -> Option<&str> {
    if let Some(i) = cell.find(['#', ':', '|', '/', '_', '-'])
        && i > 0
    {
        return cell.get(..=i);
    }
    let letters = cell
        .find(|c: char| !c.is_ascii_alphabetic())
        .filter(|&i| i > 0)?;
    cell[letters..]
        .starts_with(|c: char| c.is_ascii_digit())
        .then(|| &cell[..letters])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<Vec<String>> {
        text.lines()
            .map(|l| l.split(',').map(str::to_owned).collect())
            .collect()
    }

    fn is_data(text: &str) -> bool {
        let rows = rows(text);
        let (first, below) = rows.split_first().unwrap();
        first_row_is_data(first, below)
    }

    #[test]
    fn a_first_row_shaped_like_the_rows_below_is_data() {
        // Numbers above numbers, the same prefix, the same length, a value repeated below.
        assert!(is_data("1,Ann Lee,TX\n2,Bob Ray,CA\n3,Cy Fox,TX"));
        assert!(is_data("USER#1,ORDER#9,3\nUSER#2,ORDER#8,1"));
        assert!(is_data("a,TX\nb,CA\nc,TX"));
        // A row that repeats a name is no header.
        assert!(is_data("x,x\ny,z"));
        // Headers: text above numbers, a key-like name, names of another length or prefix.
        assert!(!is_data("number,name\n1,Ann\n2,Bob"));
        assert!(!is_data("region,writes\nus,10\neu,7"));
        assert!(
            !is_data("pk,v\n1,2\n3,4"),
            "a key column's name is a header"
        );
        assert!(!is_data("pk,count\nUSER#1,3"));
        assert!(!is_data("key\nUSER#1\nUSER#2"));
        // All text of no common shape: a header, as before (ties stay with a header).
        assert!(!is_data("alice,admin\nbob,user\ncarol,guest"));
        // A single row is a header (nothing to compare it with).
        assert!(!is_data("1,2"));
        assert!(!is_number("NaN") && !is_number("inf") && is_number("-1.5e3"));
        assert_eq!(prefix("USER#1"), Some("USER#"));
        assert_eq!(prefix("u123"), Some("u"));
        assert_eq!(prefix("alice"), None);
    }
}
