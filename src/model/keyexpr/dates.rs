//! Dates in attributes: ISO-8601 strings and epoch seconds or milliseconds, to the UTC hour.

use super::super::calendar::{civil_from_days, days_from_civil, days_in_month};
use super::{Number, Value};

// ---------------------------------------------------------------------------------------------------------
// Dates

/// An hour of a UTC day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hour {
    pub(super) year: i64,
    pub(super) month: u32,
    pub(super) day: u32,
    pub(super) hour: u32,
}

/// Seconds of 0000-01-01T00:00:00Z and of 10000-01-01T00:00:00Z.
pub(super) const MIN_EPOCH: i64 = -62_167_219_200;
pub(super) const END_EPOCH: i64 = 253_402_300_800;
/// At or above this magnitude, an epoch number is milliseconds.
pub(super) const MILLIS_FROM: f64 = 1e11;

pub(super) fn date_of(value: &Value) -> Option<Hour> {
    let secs = match value {
        Value::N(n) => epoch_seconds(n.as_str())?,
        Value::S(s) => match Number::parse(s) {
            Ok(n) => epoch_seconds(n.as_str())?,
            Err(_) => iso_seconds(s.trim())?,
        },
        _ => return None,
    };
    if !(MIN_EPOCH..END_EPOCH).contains(&secs) {
        return None;
    }
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    Some(Hour {
        year,
        month,
        day,
        hour: (secs.rem_euclid(86_400) / 3600) as u32,
    })
}

/// Epoch seconds of a canonical number: seconds below 10¹¹ in magnitude, else milliseconds; rounded down.
pub(super) fn epoch_seconds(canonical: &str) -> Option<i64> {
    let v: f64 = canonical.parse().ok()?;
    let secs = if v.abs() >= MILLIS_FROM {
        (v / 1000.0).floor()
    } else {
        v.floor()
    };
    // Checked against the year range by the caller; this bound only keeps the cast exact.
    (secs.abs() < 1e15).then_some(secs as i64)
}

/// Epoch seconds of an ISO-8601 date or date-time (see the module documentation for the forms).
pub(super) fn iso_seconds(text: &str) -> Option<i64> {
    let mut c = Cursor {
        b: text.as_bytes(),
        i: 0,
    };
    let year = i64::from(c.digits(4)?);
    c.eat(b'-').then_some(())?;
    let month = c.digits(2)?;
    c.eat(b'-').then_some(())?;
    let day = c.digits(2)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let (mut hour, mut minute, mut second, mut offset) = (0, 0, 0, 0i64);
    // A time, then `Z` or an offset; a date alone has neither.
    if c.eat(b'T') || c.eat(b't') || c.eat(b' ') {
        hour = c.digits(2)?;
        if c.eat(b':') {
            minute = c.digits(2)?;
            if c.eat(b':') {
                second = c.digits(2)?;
                if c.eat(b'.') || c.eat(b',') {
                    c.digits(1)?;
                    while c.digits(1).is_some() {}
                }
            }
        }
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        if !(c.eat(b'Z') || c.eat(b'z'))
            && let Some(sign) = c.sign()
        {
            let oh = c.digits(2)?;
            let om = if c.eat(b':') {
                c.digits(2)?
            } else {
                c.digits(2).unwrap_or(0)
            };
            if oh > 23 || om > 59 {
                return None;
            }
            offset = sign * i64::from(oh * 3600 + om * 60);
        }
    }
    if c.i != c.b.len() {
        return None;
    }
    Some(
        days_from_civil(year, month, day) * 86_400 + i64::from(hour * 3600 + minute * 60 + second)
            - offset,
    )
}

pub(super) struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn eat(&mut self, c: u8) -> bool {
        let hit = self.b.get(self.i) == Some(&c);
        self.i += usize::from(hit);
        hit
    }

    fn sign(&mut self) -> Option<i64> {
        if self.eat(b'+') {
            Some(1)
        } else if self.eat(b'-') {
            Some(-1)
        } else {
            None
        }
    }

    /// Exactly `n` ASCII digits.
    fn digits(&mut self, n: usize) -> Option<u32> {
        let digits = self.b.get(self.i..self.i + n)?;
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.i += n;
        Some(
            digits
                .iter()
                .fold(0, |acc, d| acc * 10 + u32::from(d - b'0')),
        )
    }
}
