//! Share links: a session ([`super::session::Session`]: the keys, the key type, the bucket count, the shard
//! settings and scope, the chosen view, the Timeline's scenario) carried in a URL's fragment, so a teacher can
//! hand a prepared view to a class with one link. The fragment is never sent to a server: the page reads it
//! in the reader's browser.
//!
//! The format, version 1: `BASE#shardlens1=DATA`, where DATA is the session's compact JSON, compressed with
//! raw DEFLATE (RFC 1951) and written in base64url without padding (RFC 4648 §5). Decoding is input nobody
//! controls (anyone can craft a link): a link longer than [`MAX_LINK_BYTES`] is refused with its size before
//! anything is decoded, inflating stops at [`MAX_SESSION_JSON_BYTES`], and what comes out is read by the
//! session reader, as a session file is, so a link can only ever open as a session.
//!
//! The desktop opens links too (File > Open link…, or a link pasted into the key editor), and
//! `shardlens share FILE` prints one.

use std::io::{Read as _, Write as _};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::session::{SESSION_FORMAT, Session};

/// The fragment's tag for version 1: what follows it is the data.
pub const TAG: &str = "shardlens1=";

/// The longest link shardlens makes or opens (about 100 KB: browsers and chat programs cut longer URLs, and a
/// key set that needs more is better shared as its file).
pub const MAX_LINK_BYTES: usize = 100 * 1024;

/// The most a link's data may inflate to (a link of 100 KB of a repeated key could otherwise inflate to
/// 100 MB).
pub const MAX_SESSION_JSON_BYTES: u64 = 16 << 20;

/// The page the links open when no base is given: the page beside the link's reader (`--base` names a
/// published one; docs/web.md, "Publishing").
pub const DEFAULT_BASE: &str = "index.html";

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// The link would be (or is) longer than [`MAX_LINK_BYTES`].
    #[error(
        "the link would be {}, over the {} a link may be: share the file instead (File > Save session, or the file of keys)",
        crate::model::fmt::bytes(*size as f64),
        crate::model::fmt::bytes(MAX_LINK_BYTES as f64)
    )]
    TooLong { size: usize },
    /// No `#shardlens1=` in the text.
    #[error("not a shardlens link (no #{TAG} in it)")]
    NotALink,
    /// The data is not base64url.
    #[error("the link is damaged (its data is not base64url: {0}); copy it again, whole")]
    Base64(base64::DecodeError),
    /// The data does not inflate.
    #[error("the link is damaged (its data does not decompress: {0}); copy it again, whole")]
    Inflate(std::io::Error),
    /// The data inflates beyond [`MAX_SESSION_JSON_BYTES`].
    #[error("the link's data decompresses to more than {}: not a link shardlens made", crate::model::fmt::bytes(MAX_SESSION_JSON_BYTES as f64))]
    TooLarge,
    #[error("cannot write the session: {0}")]
    Json(#[from] serde_json::Error),
}

/// The link that opens `session` on the page at `base` (`index.html`, a URL; anything after a `#` in it is
/// replaced).
pub fn encode(session: &Session, base: &str) -> Result<String, LinkError> {
    let json = serde_json::to_vec(session)?;
    let mut deflate = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to memory cannot fail.
    deflate.write_all(&json).map_err(LinkError::Inflate)?;
    let compressed = deflate.finish().map_err(LinkError::Inflate)?;
    let base = base.split('#').next().unwrap_or(base);
    let link = format!("{base}#{TAG}{}", URL_SAFE_NO_PAD.encode(compressed));
    if link.len() > MAX_LINK_BYTES {
        return Err(LinkError::TooLong { size: link.len() });
    }
    Ok(link)
}

/// The session JSON a link (or a bare fragment) carries, ready for the session reader
/// ([`Session::parse`]). Refuses text over [`MAX_LINK_BYTES`] before decoding it.
pub fn decode(link: &str) -> Result<Vec<u8>, LinkError> {
    let link = link.trim();
    if link.len() > MAX_LINK_BYTES {
        return Err(LinkError::TooLong { size: link.len() });
    }
    let data = data_of(link).ok_or(LinkError::NotALink)?;
    // A link pasted from a chat may have lost nothing but gained a trailing quote or bracket: the data ends at
    // the first character base64url does not use.
    let end = data
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(data.len());
    if end == 0 {
        return Err(LinkError::NotALink);
    }
    let compressed = URL_SAFE_NO_PAD
        .decode(&data[..end])
        .map_err(LinkError::Base64)?;
    let mut json = Vec::new();
    flate2::read::DeflateDecoder::new(&compressed[..])
        .take(MAX_SESSION_JSON_BYTES + 1)
        .read_to_end(&mut json)
        .map_err(LinkError::Inflate)?;
    if json.len() as u64 > MAX_SESSION_JSON_BYTES {
        return Err(LinkError::TooLarge);
    }
    Ok(json)
}

/// The data after the tag, in a URL or a bare fragment (`#shardlens1=…` or `shardlens1=…`).
fn data_of(link: &str) -> Option<&str> {
    let at = link.find(TAG)?;
    let before = &link[..at];
    // The tag opens the fragment (or the text): never a tag inside a query string or a path.
    (before.is_empty() || before.ends_with('#')).then(|| &link[at + TAG.len()..])
}

/// Whether `text` has a link's tag anywhere: what must be true before any of its lines [`is_link`].
pub fn may_hold_link(text: &str) -> bool {
    text.contains(TAG)
}

/// Whether `text` (pasted into the key editor, say) is one shardlens link and nothing else.
pub fn is_link(text: &str) -> bool {
    let text = text.trim();
    !text.contains(char::is_whitespace) && data_of(text).is_some()
}

/// A session made for a link: what the sender's machine knows that a link must not carry (where they connect
/// to DynamoDB, the last keys remembered) is left out.
pub fn shareable(mut session: Session) -> Session {
    session.format = SESSION_FORMAT.to_owned();
    session.settings.connect = Default::default();
    session.settings.last_keys = None;
    session
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::session::{SESSION_VERSION, Settings};

    fn session(text: &str) -> Session {
        Session {
            format: SESSION_FORMAT.into(),
            version: SESSION_VERSION,
            settings: Settings {
                buckets: 12,
                shard_enabled: true,
                ..Settings::default()
            },
            answers: Default::default(),
            text: Some(text.into()),
            keys: None,
            scenario: None,
        }
    }

    #[test]
    fn a_link_opens_the_session_it_was_made_of() {
        let s = session("celebrity\ncelebrity\nfan-1\nfan-2\n");
        let link = encode(&s, "index.html").unwrap();
        assert!(link.starts_with("index.html#shardlens1="), "{link}");
        assert!(is_link(&link));
        assert_eq!(Session::parse(&decode(&link).unwrap()).unwrap(), s);
        // A fragment alone, the base's own fragment replaced, and a trailing bracket from a chat.
        let fragment = &link[link.find('#').unwrap()..];
        assert_eq!(Session::parse(&decode(fragment).unwrap()).unwrap(), s);
        let again = encode(&s, "https://example.org/x/?embed#old").unwrap();
        assert!(again.starts_with("https://example.org/x/?embed#shardlens1="));
        assert_eq!(
            Session::parse(&decode(&format!("<{again}>")[1..]).unwrap()).unwrap(),
            s
        );
    }

    #[test]
    fn every_line_that_is_a_link_holds_the_tag_the_whole_text_is_searched_for() {
        let link = encode(&session("USER#1\n"), "index.html").unwrap();
        for text in [
            link.clone(),
            format!("USER#1\n{link}\nUSER#2\n"),
            format!("  {link}  "),
        ] {
            assert!(may_hold_link(&text), "{text}");
            assert!(text.lines().any(is_link), "{text}");
        }
        let keys = "USER#1\nORDER#2\nshardlens\n#shardlens\n".repeat(1_000);
        assert!(!may_hold_link(&keys));
        assert!(!keys.lines().any(is_link));
    }

    #[test]
    fn a_repeated_hot_key_compresses_to_a_short_link() {
        let text = "USER#celebrity\n".repeat(50_000);
        let link = encode(&session(&text), "index.html").unwrap();
        assert!(link.len() < 4_000, "{} bytes", link.len());
    }

    #[test]
    fn too_long_damaged_and_foreign_links_are_refused_with_reasons() {
        // 100,000 distinct random-looking keys do not fit.
        let text: String = (0..100_000u64)
            .map(|i| format!("{:016x}\n", i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
            .collect();
        match encode(&session(&text), "index.html") {
            Err(LinkError::TooLong { size }) => assert!(size > MAX_LINK_BYTES),
            other => panic!("{other:?}"),
        }
        let huge = format!("#{TAG}{}", "A".repeat(MAX_LINK_BYTES));
        assert!(matches!(decode(&huge), Err(LinkError::TooLong { .. })));
        assert!(matches!(
            decode("https://example.org/"),
            Err(LinkError::NotALink)
        ));
        assert!(matches!(
            decode("https://example.org/?q=shardlens1=abc"),
            Err(LinkError::NotALink)
        ));
        assert!(matches!(
            decode("#shardlens1=@@@"),
            Err(LinkError::NotALink)
        ));
        assert!(matches!(
            decode("#shardlens1=AAAA@"),
            Err(LinkError::Inflate(_) | LinkError::Base64(_))
        ));
        let link = encode(&session("a\n"), "x").unwrap();
        let cut = &link[..link.len() - 4];
        assert!(decode(cut).is_err() || Session::parse(&decode(cut).unwrap()).is_err());
        // A bomb: 20 MB of one byte, compressed, inflates past the cap and stops there.
        let mut deflate =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        deflate.write_all(&vec![b'a'; 20 << 20]).unwrap();
        let bomb = format!(
            "#{TAG}{}",
            URL_SAFE_NO_PAD.encode(deflate.finish().unwrap())
        );
        assert!(bomb.len() < MAX_LINK_BYTES);
        assert!(matches!(decode(&bomb), Err(LinkError::TooLarge)));
    }

    #[test]
    fn a_shared_session_carries_no_connection_or_remembered_keys() {
        let mut s = session("a\n");
        s.settings.connect.profile = "teacher-admin".into();
        s.settings.last_keys = Some("secret".into());
        let shared = shareable(s);
        let json = String::from_utf8(decode(&encode(&shared, "x").unwrap()).unwrap()).unwrap();
        assert!(
            !json.contains("teacher-admin") && !json.contains("secret"),
            "{json}"
        );
    }
}
