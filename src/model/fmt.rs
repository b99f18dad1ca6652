//! Numbers in words, the one way the app, the CLI and the model's own messages write them: counts with
//! thousands separators ([`grouped`], [`plural`]), byte sizes ([`bytes`]), utilisations and shares as
//! percentages ([`percent`]) and capacity units ([`units`]).
//!
//! Fixed-width table columns (the CLI's `{:>5.1}%`) are layout, not wording, and stay with their tables.

/// A count with thousands separators: "1,204".
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "1 write", "1,204 writes": a count and its noun, plural unless the count is one.
pub fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", grouped(n))
    }
}

/// As [`plural`], for a noun whose plural is not "+s": `counted(3, "query", "queries")` is "3 queries".
pub fn counted(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", grouped(n))
    }
}

/// Bytes in words: "980 B", "4.2 MB", "12.5 GB" (1 KB = 1,024 bytes).
pub fn bytes(b: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = b;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// A ratio (1.0 = all, or at the limit) as a percentage: "140 %", "5.0 %", "0.4 %", "0 %"; one decimal
/// below 10 %.
pub fn percent(ratio: f64) -> String {
    let p = ratio * 100.0;
    if p >= 10.0 || p == 0.0 {
        format!("{p:.0} %")
    } else {
        format!("{p:.1} %")
    }
}

/// Units per second, without a fraction when whole: "3000", "2.5".
pub fn units(u: f64) -> String {
    if (u - u.round()).abs() < 1e-9 {
        format!("{u:.0}")
    } else {
        format!("{u:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(plural(1, "write"), "1 write");
        assert_eq!(plural(1_204, "write"), "1,204 writes");
        assert_eq!(plural(0, "key"), "0 keys");
        assert_eq!(counted(1, "query", "queries"), "1 query");
        assert_eq!(counted(10, "query", "queries"), "10 queries");
    }

    #[test]
    fn sizes() {
        assert_eq!(bytes(980.0), "980 B");
        assert_eq!(bytes(1024.0), "1.0 KB");
        assert_eq!(bytes(4.2 * 1024.0 * 1024.0), "4.2 MB");
        assert_eq!(bytes(12.5 * 1024.0 * 1024.0 * 1024.0), "12.5 GB");
    }

    #[test]
    fn percentages() {
        assert_eq!(percent(0.05), "5.0 %");
        assert_eq!(percent(1.4), "140 %");
        assert_eq!(percent(0.0), "0 %");
        assert_eq!(units(3000.0), "3000");
        assert_eq!(units(2.5), "2.5");
    }
}
