//! clap parses straight into the model's and the sources' own enums: each one's command-line spelling is its
//! `as_str`, its variants its `ALL`, and the help shown for a value (in `--help`) is written here, next to the
//! other command-line text.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::model::capacity::{Consistency, RateSource};
use crate::model::{KeyType, Strategy};
use crate::source::{CsvHeader, FormatIn};

/// `impl ValueEnum` for a type with `ALL` and `as_str`, with an optional help line per value.
macro_rules! value_enum {
    ($ty:ty, $help:expr) => {
        impl ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &<$ty>::ALL
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                let help: fn($ty) -> Option<&'static str> = $help;
                let value = PossibleValue::new(self.as_str());
                Some(match help(*self) {
                    Some(text) => value.help(text),
                    None => value,
                })
            }
        }
    };
}

value_enum!(Strategy, |_| None);
value_enum!(KeyType, |_| None);
value_enum!(Consistency, |_| None);
value_enum!(FormatIn, |f| Some(format_in_help(f)));
value_enum!(CsvHeader, |h| Some(match h {
    CsvHeader::Auto => "The first row is data when it is shaped like the rows below it",
    CsvHeader::Yes => "The first row names the columns",
    CsvHeader::No => "Every row is data (columns col1, col2, …, or --csv-columns)",
}));
value_enum!(RateSource, |r| Some(counts_are_help(r)));

/// The help of each `--format-in` value.
fn format_in_help(format: FormatIn) -> &'static str {
    match format {
        FormatIn::Auto => "Detect from each file's name and first bytes",
        FormatIn::Lines => "Plain text, one key per line (`pk` or `pk<TAB>sk`)",
        FormatIn::Csv => "CSV with a header; optional `count` column",
        FormatIn::DynamodbJson => "DynamoDB JSON lines, as an S3 export writes them (plain or .gz)",
        FormatIn::ScanJson => "`aws dynamodb scan` output (pages may be concatenated)",
        FormatIn::Ion => "Ion text export lines",
        FormatIn::Incremental => "Incremental export lines (writes per key)",
        FormatIn::Workbench => {
            "NoSQL Workbench model (TableData and TableFacets; --table picks a table)"
        }
        FormatIn::JsonArray => {
            "A JSON array of items, typed DynamoDB JSON or plain JSON, pretty-printed or not"
        }
        FormatIn::JsonItems => {
            "JSON items one after another, typed or plain (plain JSON lines, put-item input)"
        }
        FormatIn::BatchWrite => "BatchWriteItem request file (--table picks a table)",
    }
}

/// The help of each `--counts-are` value.
fn counts_are_help(rates: RateSource) -> &'static str {
    match rates {
        RateSource::Weights => {
            "Counts are weights: the rates are spread over the keys in proportion"
        }
        RateSource::WritesPerSec => {
            "Counts are each key's writes per second (e.g. a `key,count` file of request rates)"
        }
        RateSource::ReadsPerSec => "Counts are each key's reads per second",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_the_model_s_own() {
        for s in Strategy::ALL {
            assert_eq!(Strategy::from_str(s.as_str(), false), Ok(s));
        }
        assert_eq!(KeyType::from_str("n", true), Ok(KeyType::N));
        assert_eq!(
            FormatIn::from_str("dynamodb-json", false),
            Ok(FormatIn::DynamodbJson)
        );
        assert_eq!(
            RateSource::from_str("writes-per-sec", false),
            Ok(RateSource::WritesPerSec)
        );
        assert!(Consistency::from_str("weak", false).is_err());
    }
}
