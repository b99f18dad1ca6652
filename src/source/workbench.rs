//! NoSQL Workbench data models: `{"ModelName":…,"DataModel":[{"TableName":…,"KeyAttributes":{"PartitionKey":
//! {"AttributeName":"DeviceID","AttributeType":"S"},"SortKey":{…}},"TableData":[{"DeviceID":{"S":"…"}}]}]}`.
//!
//! The key attributes come from the model's `KeyAttributes` (`--key` picks another attribute). A model may hold
//! several tables: the one whose partition key is `--key`, else the first, with a warning naming the others.
//! Models are small hand-made documents, so the document is read whole (at most 64 MiB).

use std::io::{BufRead, Read as _};
use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeSeed as _;

use super::item::{ItemSeed, KeyNames, Scratch};
use super::read::{Sink, json_reason};
use super::{At, LoadOptions, SourceError};

const MAX_MODEL_BYTES: u64 = 64 << 20;

#[derive(Deserialize)]
struct Model {
    #[serde(rename = "DataModel")]
    data_model: Vec<Table>,
}

#[derive(Deserialize)]
struct Table {
    #[serde(rename = "TableName", default)]
    name: String,
    #[serde(rename = "KeyAttributes")]
    keys: KeyAttributes,
    #[serde(rename = "TableData", default)]
    data: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct KeyAttributes {
    #[serde(rename = "PartitionKey")]
    partition_key: Attribute,
    #[serde(rename = "SortKey", default)]
    sort_key: Option<Attribute>,
}

#[derive(Deserialize)]
struct Attribute {
    #[serde(rename = "AttributeName")]
    name: String,
}

/// Loads the table data of a Workbench model.
pub fn load_workbench(
    reader: &mut dyn BufRead,
    name: &Path,
    sink: &mut Sink,
    opts: &LoadOptions,
) -> Result<(), SourceError> {
    let mut limited = reader.take(MAX_MODEL_BYTES + 1);
    let mut text = Vec::new();
    limited
        .read_to_end(&mut text)
        .map_err(|source| SourceError::Io {
            name: name.to_path_buf(),
            source,
        })?;
    if text.len() as u64 > MAX_MODEL_BYTES {
        return Err(SourceError::record(
            name,
            At::File,
            format!("model is over {MAX_MODEL_BYTES} bytes; expected a NoSQL Workbench model"),
        ));
    }
    let model: Model = serde_json::from_slice(&text).map_err(|e| {
        let what = if e.is_data() {
            format!("unexpected JSON: {}; expected a NoSQL Workbench model {{\"DataModel\":[{{\"TableName\":…,\"KeyAttributes\":…,\"TableData\":[…]}}]}}", json_reason(&e))
        } else {
            format!("invalid JSON: {}", json_reason(&e))
        };
        SourceError::record(name, At::Line(e.line() as u64), what)
    })?;
    drop(text);
    let pick = opts
        .key
        .as_deref()
        .and_then(|k| {
            model
                .data_model
                .iter()
                .position(|t| t.keys.partition_key.name == k)
        })
        .unwrap_or(0);
    let Some(table) = model.data_model.get(pick) else {
        return Err(SourceError::record(
            name,
            At::File,
            "the model has no tables; expected at least one in DataModel",
        ));
    };
    if model.data_model.len() > 1 {
        let others: Vec<&str> = model
            .data_model
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != pick)
            .map(|(_, t)| t.name.as_str())
            .collect();
        sink.warn(format!(
            "the model has {} tables; loaded {:?}, not {} (in {})",
            model.data_model.len(),
            table.name,
            others.join(", "),
            name.display()
        ));
    }
    let names = KeyNames {
        pk: opts
            .key
            .clone()
            .unwrap_or_else(|| table.keys.partition_key.name.clone()),
        sk: opts
            .sort_key
            .clone()
            .or_else(|| table.keys.sort_key.as_ref().map(|s| s.name.clone())),
        guessed: false,
    };
    if sink.names.as_ref().is_some_and(|n| *n != names) {
        sink.warn(format!(
            "key attributes of {} differ from an earlier file's",
            name.display()
        ));
    }
    sink.names = Some(names);
    let mut scratch = Scratch::default();
    for (i, item) in table.data.iter().enumerate() {
        let at = At::Item {
            item: i as u64 + 1,
            line: None,
        };
        let result = ItemSeed {
            names: sink.names.as_ref(),
            scratch: &mut scratch,
        }
        .deserialize(item)
        .map_err(|e| {
            format!("unexpected JSON: {e}; expected an item of attributes like {{\"S\":\"…\"}}")
        })
        .and_then(|()| sink.add_scratch(&scratch, 1))
        .map_err(|what| SourceError::record(name, at, what));
        sink.check(result)?;
    }
    sink.lines += table.data.len() as u64;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_table_data_with_model_keys() {
        let text = r#"{"ModelName":"m","DataModel":[{"TableName":"Devices","KeyAttributes":{"PartitionKey":{"AttributeName":"DeviceID","AttributeType":"S"},"SortKey":{"AttributeName":"At","AttributeType":"N"}},"TableData":[{"DeviceID":{"S":"d#1"},"At":{"N":"1"}},{"DeviceID":{"S":"d#1"},"At":{"N":"2"}},{"At":{"N":"3"},"DeviceID":{"S":"d#2"}}]}]}"#;
        let opts = LoadOptions::default();
        let mut sink = Sink::new(&opts);
        load_workbench(&mut text.as_bytes(), Path::new("m.json"), &mut sink, &opts).unwrap();
        assert_eq!(sink.keys.total(), 3);
        let facts = sink
            .keys
            .sort_key_facts(sink.keys.find(b"d#1").unwrap())
            .unwrap();
        assert_eq!(facts.items, 2);
        // A model's rows are not a log of writes: "only increasing" is not read from their order.
        assert!(!facts.only_increasing);
        let bad = text.replace(
            r#"{"At":{"N":"3"},"DeviceID":{"S":"d#2"}}"#,
            r#"{"At":{"N":"3"}}"#,
        );
        let mut sink = Sink::new(&opts);
        let e =
            load_workbench(&mut bad.as_bytes(), Path::new("m.json"), &mut sink, &opts).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("item 3: item has no attribute \"DeviceID\""),
            "{e}"
        );
    }
}
