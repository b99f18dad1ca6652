//! The Queries that read a sharded key back: `analyze --shards … --format json` prints them as `queries`,
//! and the app's "Copy key conditions" (Ctrl+Shift+C) copies them as `aws dynamodb query` command lines.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/cli.rs"]
mod support;

use serde_json::json;
use support::{json, run, temp_dir};

/// A DynamoDB JSON file whose key attribute is `PK`, with one hot key holding a quote.
fn items_file() -> std::path::PathBuf {
    let dir = temp_dir("queries", "items");
    let path = dir.join("items.json");
    let mut text = String::new();
    for i in 0..90 {
        text.push_str(&format!(
            "{{\"Item\":{{\"PK\":{{\"S\":\"CUST#o'hare\"}},\"SK\":{{\"S\":\"ORDER#{i}\"}}}}}}\n"
        ));
    }
    for i in 0..10 {
        text.push_str(&format!(
            "{{\"Item\":{{\"PK\":{{\"S\":\"CUST#{i}\"}},\"SK\":{{\"S\":\"ORDER#1\"}}}}}}\n"
        ));
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn analyze_json_has_one_query_per_shard_with_the_key_attribute() {
    let path = items_file();
    let doc = json(&run(&[
        "analyze",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--shards",
        "4",
        "--shard-strategy",
        "round-robin",
    ]));
    assert_eq!(doc["input"]["key_attribute"], "PK");
    let queries = doc["queries"].as_array().unwrap();
    assert_eq!(queries.len(), 4);
    for (i, q) in queries.iter().enumerate() {
        // The request `aws dynamodb query --cli-input-json` and boto3's `query(**q)` take; the file does not
        // name its table, so no TableName.
        assert!(q.get("TableName").is_none(), "{q}");
        assert_eq!(q["KeyConditionExpression"], "#pk = :pk");
        assert_eq!(q["ExpressionAttributeNames"], json!({"#pk": "PK"}));
        assert_eq!(
            q["ExpressionAttributeValues"],
            json!({":pk": {"S": format!("CUST#o'hare#{i}")}})
        );
    }
}

#[test]
fn plain_keys_without_sharding_have_no_queries_and_with_it_say_pk() {
    let dir = temp_dir("queries", "plain");
    let path = dir.join("keys.txt");
    let mut text = "HOT\n".repeat(50);
    text.push_str("a\nb\nc\n");
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    let doc = json(&run(&["analyze", p, "--format", "json"]));
    assert_eq!(doc["queries"], json!([]));
    let doc = json(&run(&["analyze", p, "--format", "json", "--shards", "3"]));
    let queries = doc["queries"].as_array().unwrap();
    assert_eq!(queries.len(), 3);
    assert_eq!(queries[2]["ExpressionAttributeNames"], json!({"#pk": "pk"}));
    assert_eq!(
        queries[2]["ExpressionAttributeValues"],
        json!({":pk": {"S": "HOT#2"}})
    );
}

#[cfg(feature = "gui")]
#[path = "support/kittest.rs"]
mod kittest;

#[cfg(feature = "gui")]
mod app {
    use super::kittest::{Settle as _, harness_at};

    /// The text Ctrl+Shift+C copies in one frame (a press spread over several frames would leave it in an
    /// earlier frame's output).
    fn copy_in_one_frame(h: &mut egui_kittest::Harness<'_, shardlens::app::App>) -> Vec<String> {
        let copy_keys = egui::Modifiers::COMMAND | egui::Modifiers::SHIFT;
        let events = &mut h.input_mut().events;
        events.push(egui::Event::ModifiersChanged(copy_keys));
        events.push(egui::Event::Key {
            key: egui::Key::C,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: copy_keys,
        });
        events.push(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
        h.step();
        h.output()
            .platform_output
            .commands
            .iter()
            .filter_map(|c| match c {
                egui::OutputCommand::CopyText(t) => Some(t.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn ctrl_shift_c_copies_one_aws_cli_query_per_shard() {
        let mut h = harness_at([1400.0, 900.0]);
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
        h.wait_for("sharding to turn on", |app| app.settings().shard_enabled);
        let copied = copy_in_one_frame(&mut h);
        // The leaderboard example: pasted keys, so no table name and no attribute name is known.
        let expected: Vec<String> = (0..10)
            .map(|i| {
                format!(
                    "aws dynamodb query --table-name TABLE --key-condition-expression '#pk = :pk' \
                     --expression-attribute-names '{{\"#pk\":\"pk\"}}' \
                     --expression-attribute-values '{{\":pk\":{{\"S\":\"BOARD#global#{i}\"}}}}'"
                )
            })
            .collect();
        assert_eq!(copied, vec![expected.join("\n")]);
        h.settle();
        let notice = h.state().notices().last().unwrap().text.clone();
        assert!(
            notice.contains("copied 10 aws dynamodb query command lines for BOARD#global")
                && notice.contains("replace TABLE"),
            "{notice}"
        );
    }
}
