//! NoSQL Workbench data models: `{"ModelName":…,"DataModel":[{"TableName":…,"KeyAttributes":{"PartitionKey":
//! {"AttributeName":"DeviceID","AttributeType":"S"},"SortKey":{…}},"TableData":[{"DeviceID":{"S":"…"}}]}]}`.
//!
//! Items are a table's `TableData` and, in facet models (Workbench v1 and v3), each facet's
//! `TableFacets[].TableData` (an item listed in both is counted once). The key attributes come from the
//! table's `KeyAttributes` (`--key` picks another attribute); a facet's `KeyAttributeAlias` (a template like
//! `#METADATA#playerID`) is a display name, not an attribute. A model with several tables is never merged into
//! one key set: `--table NAME` picks one, else the first is loaded with a warning naming the others (the app
//! asks with a table picker, from [`super::Loaded::tables`]). Models are small hand-made documents, so the
//! document is read whole (at most 64 MiB).

use std::collections::HashSet;
use std::io::Read as _;
use std::path::Path;

use serde::Deserialize;

use super::json::item::KeyNames;
use super::json::json_doc::{ItemReader, list_or_none, other_tables};
use super::read::{FileLoad, Sink, json_reason};
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
    #[serde(rename = "TableFacets", default)]
    facets: Vec<Facet>,
}

#[derive(Deserialize)]
struct Facet {
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
pub fn load_workbench(cx: FileLoad<'_, '_>) -> Result<(), SourceError> {
    let FileLoad {
        reader,
        name,
        opts,
        sink,
        ..
    } = cx;
    let model = read_model(reader, name)?;
    let tables: Vec<String> = model.data_model.iter().map(|t| t.name.clone()).collect();
    let table = pick_table(&model, &tables, name, sink, opts)?;
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
    let n = load_items(table, name, sink, opts)?;
    sink.lines += n;
    sink.tables = tables;
    sink.table = Some(table.name.clone());
    let facets = table.facets.len();
    let from_facets: usize = table.facets.iter().map(|f| f.data.len()).sum();
    sink.shape = Some(
        format!(
            "NoSQL Workbench model, table {:?}{}",
            table.name,
            if facets > 0 {
                format!(" ({from_facets} items in {facets} facets)")
            } else {
                String::new()
            }
        )
        .into(),
    );
    Ok(())
}

/// Reads and parses the whole model (at most [`MAX_MODEL_BYTES`]).
fn read_model(reader: &mut dyn std::io::BufRead, name: &Path) -> Result<Model, SourceError> {
    let mut limited = reader.take(MAX_MODEL_BYTES + 1);
    let mut text = Vec::new();
    limited
        .read_to_end(&mut text)
        .map_err(|error| SourceError::Io {
            name: name.to_path_buf(),
            error,
        })?;
    if text.len() as u64 > MAX_MODEL_BYTES {
        return Err(SourceError::record(
            name,
            At::File,
            format!("model is over {MAX_MODEL_BYTES} bytes; expected a NoSQL Workbench model"),
        ));
    }
    serde_json::from_slice(&text).map_err(|e| {
        let what = if e.is_data() {
            format!("unexpected JSON: {}; expected a NoSQL Workbench model {{\"DataModel\":[{{\"TableName\":…,\"KeyAttributes\":…,\"TableData\":[…]}}]}}", json_reason(&e))
        } else {
            format!("invalid JSON: {}", json_reason(&e))
        };
        SourceError::record(name, At::Line(e.line() as u64), what)
    })
}

/// The table `--table` names, else the first (with a warning naming the others when there are more).
fn pick_table<'m>(
    model: &'m Model,
    tables: &[String],
    name: &Path,
    sink: &mut Sink,
    opts: &LoadOptions,
) -> Result<&'m Table, SourceError> {
    let pick = match opts.table.as_deref() {
        Some(want) => model
            .data_model
            .iter()
            .position(|t| t.name == want)
            .ok_or_else(|| {
                SourceError::record(
                    name,
                    At::File,
                    format!(
                        "no table {want:?} in the model; it has {}",
                        list_or_none(tables)
                    ),
                )
            })?,
        None => 0,
    };
    let Some(table) = model.data_model.get(pick) else {
        return Err(SourceError::record(
            name,
            At::File,
            "the model has no tables; expected at least one in DataModel",
        ));
    };
    if model.data_model.len() > 1 && opts.table.is_none() {
        let others: Vec<&str> = tables
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != pick)
            .map(|(_, t)| t.as_str())
            .collect();
        sink.warn(other_tables(
            "the model",
            tables.len(),
            &table.name,
            &others,
            name,
        ));
    }
    Ok(table)
}

/// Reads the table's own items, then the facets' (an item in both counted once); returns the items read.
fn load_items(
    table: &Table,
    name: &Path,
    sink: &mut Sink,
    opts: &LoadOptions,
) -> Result<u64, SourceError> {
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut reader = ItemReader::typed(opts);
    let mut n = 0u64;
    for item in table
        .data
        .iter()
        .chain(table.facets.iter().flat_map(|f| f.data.iter()))
    {
        let Ok(text) = serde_json::to_vec(item) else {
            continue;
        };
        if !seen.insert(text.clone()) {
            continue;
        }
        n += 1;
        let at = At::Item {
            item: n,
            line: None,
        };
        let result = reader
            .item(&text, sink, opts)
            .map_err(|what| SourceError::record(name, at, what));
        sink.check(result)?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::read::load_text;

    #[test]
    fn loads_table_data_with_model_keys() {
        let text = r#"{"ModelName":"m","DataModel":[{"TableName":"Devices","KeyAttributes":{"PartitionKey":{"AttributeName":"DeviceID","AttributeType":"S"},"SortKey":{"AttributeName":"At","AttributeType":"N"}},"TableData":[{"DeviceID":{"S":"d#1"},"At":{"N":"1"}},{"DeviceID":{"S":"d#1"},"At":{"N":"2"}},{"At":{"N":"3"},"DeviceID":{"S":"d#2"}}]}]}"#;
        let opts = LoadOptions::default();
        let sink = load_text(text, "m.json", &opts, load_workbench).unwrap();
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
        let e = load_text(&bad, "m.json", &opts, load_workbench).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("item 3: item has no attribute \"DeviceID\""),
            "{e}"
        );
    }
}
