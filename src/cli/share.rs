//! `shardlens share FILE`: a link that opens the file's keys in the page (or the desktop app), with the view
//! the options describe: the bucket count, the key type, and sharding with its count and scope. The link
//! carries a session in its fragment ([`crate::source::link`]); nothing is uploaded anywhere.

use std::io::Write;

use super::args::{OutputFormat, ShareArgs};
use super::commands::load_keys;
use crate::source::link::{self, DEFAULT_BASE};
use crate::source::session::{SESSION_FORMAT, SESSION_VERSION, Session, Settings};

pub(super) fn share(args: &ShareArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let view = args.keys.view.view_settings()?;
    let (loaded, name) = load_keys(&args.keys)?;
    let keys = &loaded.keys;
    if keys.is_empty() {
        anyhow::bail!("{name} holds no keys: there is nothing to share");
    }
    let session = Session {
        format: SESSION_FORMAT.to_owned(),
        version: SESSION_VERSION,
        settings: Settings {
            buckets: view.buckets,
            shard_enabled: view.shard.shards > 1,
            shard: view.shard.clone(),
            key_type: keys.key_type(),
            top_n: view.top_n,
            ..Settings::default()
        },
        answers: args.keys.view.answers(),
        text: None,
        keys: Some(
            keys.iter()
                .map(|(i, _, count)| (keys.display(i).into_owned(), count))
                .collect(),
        ),
        scenario: None,
    };
    let base = args.base.as_deref().unwrap_or(DEFAULT_BASE);
    let url = link::encode(&link::shareable(session), base)
        .map_err(|e| anyhow::anyhow!("cannot share {name}: {e}"))?;
    match args.keys.view.format {
        OutputFormat::Json => writeln!(
            out,
            "{}",
            serde_json::json!({
                "link": url,
                "bytes": url.len(),
                "keys": keys.len(),
                "items": keys.total(),
            })
        )?,
        _ => writeln!(out, "{url}")?,
    }
    Ok(())
}
