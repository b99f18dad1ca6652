//! The plain-text key format: one partition key per line, a repeated line a repeated write.
//!
//! A line may carry a sort key after a tab (`pk<TAB>sk`), which gives the per-key item counts and the
//! "sort key only increases" fact. Blank lines are ignored, `\r\n` is accepted. Parsing is pure: the source
//! layer feeds it bytes from a file or stdin, the app feeds it the editor's text.

use super::key::{
    KeyError, KeyType, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, canonicalize_into,
};
use super::keyset::KeySet;

/// A line that is not a valid key, by 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {error}")]
pub struct LineError {
    pub line: u64,
    pub error: KeyError,
}

/// Feeds lines into a [`KeySet`], counting line numbers.
///
/// Keys without a sort key are added in batches of `BATCH`: their hashes are computed and what each lookup
/// will read is touched first ([`KeySet::warm`]), so a large key set's cache misses overlap instead of coming
/// one at a time. Insertion order, counts and errors are as if each line were added on its own.
#[derive(Debug)]
pub struct LineParser {
    keys: KeySet,
    sort_key_type: KeyType,
    line: u64,
    pk: Vec<u8>,
    sk: Vec<u8>,
    /// Canonical keys waiting to be added, back to back, with their end offsets and hashes.
    batch: Vec<u8>,
    batch_ends: Vec<usize>,
    batch_hashes: Vec<u64>,
    /// Each line's sort key hash under its key, for calculated sharding by the sort key
    /// ([`Self::with_shard_by_sort_key`]).
    shard_by: Option<super::shard::ShardBy>,
}

/// Keys looked up together (see [`LineParser`]).
const BATCH: usize = 32;

/// Keys of plain lines are hashed, then added, in runs of this many ([`KeySet::add_run`]): their places and
/// hashes (96 KiB) stay in the core's cache between the two.
const RUN: usize = 4096;

impl LineParser {
    pub fn new(key_type: KeyType) -> Self {
        Self {
            keys: KeySet::new(key_type),
            sort_key_type: KeyType::S,
            line: 0,
            pk: Vec::with_capacity(64),
            sk: Vec::new(),
            batch: Vec::with_capacity(BATCH * 32),
            batch_ends: Vec::with_capacity(BATCH),
            batch_hashes: Vec::with_capacity(BATCH),
            shard_by: None,
        }
    }

    /// Also notes each line's sort key (hashed) under its key, so a calculated suffix can shard by it: the
    /// lines of one item (one `pk<TAB>sk`) are writes of that item and take one shard ([`Self::finish_by`]).
    pub fn with_shard_by_sort_key(mut self) -> Self {
        self.shard_by = Some(super::shard::ShardBy::default());
        self
    }

    /// Adds the batched keys, in order, after touching what their lookups read.
    fn flush(&mut self) {
        if self.batch_ends.is_empty() {
            return;
        }
        self.batch_hashes.clear();
        let mut start = 0;
        for &end in &self.batch_ends {
            self.batch_hashes
                .push(super::partition::key_hash(&self.batch[start..end]));
            start = end;
        }
        let mut touched = 0u64;
        for &h in &self.batch_hashes {
            touched ^= self.keys.warm(h);
        }
        std::hint::black_box(touched);
        let mut start = 0;
        for (&end, &h) in self.batch_ends.iter().zip(&self.batch_hashes) {
            self.keys.add_hashed(&self.batch[start..end], h, 1);
            start = end;
        }
        self.batch.clear();
        self.batch_ends.clear();
    }

    /// Sort keys after a tab are read as this type (default S).
    pub fn with_sort_key_type(mut self, ty: KeyType) -> Self {
        self.sort_key_type = ty;
        self
    }

    /// Lines read so far.
    pub fn lines(&self) -> u64 {
        self.line
    }

    /// The keys so far (every line fed is in).
    pub fn keys(&mut self) -> &KeySet {
        self.flush();
        &self.keys
    }

    /// Adds one line (without its `\n`).
    pub fn feed_line(&mut self, line: &[u8]) -> Result<(), LineError> {
        self.line += 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let (pk_raw, sk_raw) = match memchr_tab(line) {
            Some(tab) => (&line[..tab], Some(&line[tab + 1..])),
            None => (line, None),
        };
        let at = |error| LineError {
            line: self.line,
            error,
        };
        canonicalize_into(
            pk_raw,
            self.keys.key_type(),
            MAX_PARTITION_KEY_BYTES,
            &mut self.pk,
        )
        .map_err(at)?;
        match sk_raw.filter(|s| !s.is_empty()) {
            Some(sk_raw) => {
                canonicalize_into(sk_raw, self.sort_key_type, MAX_SORT_KEY_BYTES, &mut self.sk)
                    .map_err(at)?;
                self.flush();
                let idx = self
                    .keys
                    .add_item(&self.pk, Some((&self.sk, self.sort_key_type)), 1);
                if let Some(by) = &mut self.shard_by {
                    by.add(idx, super::partition::key_hash(&self.sk), 1);
                }
            }
            None => {
                self.batch.extend_from_slice(&self.pk);
                self.batch_ends.push(self.batch.len());
                if self.batch_ends.len() == BATCH {
                    self.flush();
                }
            }
        }
        Ok(())
    }

    /// Adds every line of `text`; a final line without `\n` counts.
    pub fn feed_text(&mut self, text: &[u8]) -> Result<(), LineError> {
        if self.keys.key_type() == KeyType::S
            && memchr::memchr(b'\t', text).is_none()
            && std::str::from_utf8(text).is_ok()
        {
            return self.feed_plain_strings(text);
        }
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', text) {
            self.feed_line(&text[start..nl])?;
            start = nl + 1;
        }
        if start < text.len() {
            self.feed_line(&text[start..])?;
        }
        Ok(())
    }

    /// [`Self::feed_text`] for a text known to be valid UTF-8 without a tab, keys of type S: every line is a key
    /// as it stands, so each is hashed where it lies (no copy, no check per line), and the keys are added in
    /// runs ([`KeySet::add_run`]).
    ///
    /// Measured (`shardlens-bench analyze`, 10,000,000 lines, 1,000,000 distinct keys, one thread): the
    /// per-line path copied each key twice and checked its UTF-8 on its own, 43 % of the time with the
    /// lookups' batching; this path is the same lookups with that work gone.
    fn feed_plain_strings(&mut self, text: &[u8]) -> Result<(), LineError> {
        self.flush();
        // Filled in place (not pushed: a push's checks were 15 instructions a line), lines counted here and
        // added to the parser's count at the end.
        let (mut spans, mut hashes) = (vec![(0usize, 0usize); RUN], vec![0u64; RUN]);
        let (mut queued, mut lines_read) = (0, 0u64);
        let mut start = 0;
        let mut lines = super::bytes::Newlines::new(text);
        loop {
            let end = match lines.next() {
                Some(nl) => nl,
                None if start < text.len() => text.len(),
                None => break,
            };
            let line_start = start;
            start = end + 1;
            lines_read += 1;
            let line = &text[line_start..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if line.len() > MAX_PARTITION_KEY_BYTES {
                self.keys.add_run(text, &spans[..queued], &hashes[..queued]);
                self.line += lines_read;
                return Err(LineError {
                    line: self.line,
                    error: KeyError::TooLong {
                        len: line.len(),
                        max: MAX_PARTITION_KEY_BYTES,
                    },
                });
            }
            if let (Some(span), Some(hash)) = (spans.get_mut(queued), hashes.get_mut(queued)) {
                *span = (line_start, line_start + line.len());
                *hash = super::partition::key_hash(line);
            }
            queued += 1;
            if queued == RUN {
                self.keys.add_run(text, &spans, &hashes);
                queued = 0;
            }
        }
        self.keys.add_run(text, &spans[..queued], &hashes[..queued]);
        self.line += lines_read;
        Ok(())
    }

    pub fn finish(self) -> KeySet {
        self.finish_by().0
    }

    /// The keys, and with [`Self::with_shard_by_sort_key`] what calculated sharding by the sort key splits.
    pub fn finish_by(mut self) -> (KeySet, Option<super::shard::ShardBy>) {
        self.flush();
        if let Some(by) = &mut self.shard_by {
            by.finish();
        }
        // Lines are writes in the order they happened: a key's sort keys that only increase here were
        // written in increasing order.
        self.keys.set_write_ordered(true);
        (self.keys, self.shard_by)
    }
}

fn memchr_tab(line: &[u8]) -> Option<usize> {
    line.iter().position(|&b| b == b'\t')
}

/// Parses a whole text of keys.
pub fn parse_text(text: &[u8], key_type: KeyType) -> Result<KeySet, LineError> {
    let mut parser = LineParser::new(key_type);
    parser.feed_text(text)?;
    Ok(parser.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batched_lines_keep_first_appearance_order_and_counts() {
        // Over several batches, with sort-key lines (added at once) between batched ones.
        let mut text = String::new();
        let mut want: Vec<(String, u64)> = Vec::new();
        for i in 0..200u32 {
            let key = format!("k{}", (i * 7) % 50);
            if i % 9 == 0 {
                text.push_str(&format!("{key}\tsk{i}\n"));
            } else {
                text.push_str(&format!("{key}\n"));
            }
            match want.iter_mut().find(|(k, _)| *k == key) {
                Some(w) => w.1 += 1,
                None => want.push((key, 1)),
            }
        }
        let mut parser = LineParser::new(KeyType::S);
        let lines: Vec<&str> = text.lines().collect();
        for line in &lines[..100] {
            parser.feed_line(line.as_bytes()).unwrap();
        }
        assert_eq!(
            parser.keys().total(),
            100,
            "keys() sees every line fed so far"
        );
        for line in &lines[100..] {
            parser.feed_line(line.as_bytes()).unwrap();
        }
        let keys = parser.finish();
        let got: Vec<(String, u64)> = keys
            .iter()
            .map(|(i, _, c)| (keys.display(i).into_owned(), c))
            .collect();
        assert_eq!(got, want);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// Plain lines read as one text (hashed and added in runs, each key's entry asked for ahead and taken
        /// when it holds the key) leave what reading them one line at a time leaves: the same keys in the same
        /// order with the same counts, over runs of up to 3 × [`RUN`] lines, keys short and long, repeats near
        /// and far, blank and CRLF lines, and a line too long to be a key (the same error, the same keys
        /// before it).
        #[test]
        fn plain_text_in_runs_is_line_by_line(
            picks in proptest::collection::vec(0usize..2_000, 0..3 * RUN + 50),
            tail_len in proptest::sample::select(vec![0usize, 3, 25]),
            too_long_at in proptest::option::of(0usize..3 * RUN + 50),
        ) {
            let mut text = Vec::new();
            for (n, &p) in picks.iter().enumerate() {
                if too_long_at == Some(n) {
                    text.extend(std::iter::repeat_n(b'L', MAX_PARTITION_KEY_BYTES + 1));
                    text.push(b'\n');
                }
                match p % 97 {
                    0 => text.extend_from_slice(b"\n"),
                    1 => text.extend_from_slice(b"   \n"),
                    _ => {
                        // A few hot keys, many cold ones, some past what an entry holds.
                        let k = if p % 3 == 0 { p % 7 } else { p };
                        text.extend_from_slice(format!("key#{k}{}", "t".repeat(k % 4 * tail_len / 3)).as_bytes());
                        text.extend_from_slice(if p % 5 == 0 { b"\r\n" } else { b"\n" });
                    }
                }
            }
            let mut whole = LineParser::new(KeyType::S);
            let got = whole.feed_text(&text);
            let mut by_line = LineParser::new(KeyType::S);
            let mut want = Ok(());
            for line in text.split(|&b| b == b'\n') {
                want = by_line.feed_line(line);
                if want.is_err() {
                    break;
                }
            }
            proptest::prop_assert_eq!(got.map_err(|e| e.line), want.map_err(|e| e.line));
            let (a, b) = (whole.keys().clone(), by_line.keys().clone());
            proptest::prop_assert_eq!((a.len(), a.total()), (b.len(), b.total()));
            for ((i, k, c), (j, l, d)) in a.iter().zip(b.iter()) {
                proptest::prop_assert_eq!((i, k, c), (j, l, d));
                proptest::prop_assert_eq!(a.find(k), Some(i));
            }
        }
    }

    #[test]
    fn lines_blanks_and_crlf() {
        let keys = parse_text(b"a\r\nb\n\n  \na\r\nc", KeyType::S).unwrap();
        assert_eq!(keys.total(), 4);
        assert_eq!(keys.len(), 3);
        assert_eq!(keys.count(keys.find(b"a").unwrap()), 2);
        assert_eq!(keys.count(keys.find(b"c").unwrap()), 1);
    }

    #[test]
    fn numbers_merge_by_value() {
        let keys = parse_text(b"1\n1.0\n01\n1E0\n10E-1\n2\n-0\n0\n", KeyType::N).unwrap();
        assert_eq!(keys.len(), 3);
        assert_eq!(keys.count(keys.find(b"1").unwrap()), 5);
        assert_eq!(keys.count(keys.find(b"0").unwrap()), 2);
    }

    #[test]
    fn errors_name_the_line() {
        let err = parse_text(b"1\n2\nabc\n", KeyType::N).unwrap_err();
        assert_eq!(err.line, 3);
        assert_eq!(err.to_string(), "line 3: \"abc\" is not a number");
        let err = parse_text(b"ok\n\xff\xfe\n", KeyType::S).unwrap_err();
        assert_eq!(err.line, 2);
        assert_eq!(err.error, KeyError::InvalidUtf8);
        let err = parse_text(b"AQID\n!!\n", KeyType::B).unwrap_err();
        assert_eq!(err.line, 2);
        let long = [b"x\n".to_vec(), vec![b'k'; 2049]].concat();
        let err = parse_text(&long, KeyType::S).unwrap_err();
        assert_eq!(err.line, 2);
        assert!(matches!(err.error, KeyError::TooLong { len: 2049, .. }));
    }

    #[test]
    fn sort_keys_after_a_tab() {
        let keys = parse_text(
            b"ARENA\tEVT#1\nARENA\tEVT#2\nBOARD\tTOP\nBOARD\tTOP\n",
            KeyType::S,
        )
        .unwrap();
        assert_eq!(keys.len(), 2);
        let arena = keys.sort_key_facts(keys.find(b"ARENA").unwrap()).unwrap();
        assert_eq!(arena.items, 2);
        assert!(arena.only_increasing);
        assert_eq!(
            keys.sort_key_facts(keys.find(b"BOARD").unwrap())
                .unwrap()
                .items,
            1
        );
        let err =
            parse_text(&[b"K\t".to_vec(), vec![b's'; 1025]].concat(), KeyType::S).unwrap_err();
        assert!(matches!(err.error, KeyError::TooLong { max: 1024, .. }));
    }

    #[test]
    fn empty_text_is_an_empty_set() {
        assert!(parse_text(b"", KeyType::S).unwrap().is_empty());
        assert!(parse_text(b"\n\n\r\n", KeyType::S).unwrap().is_empty());
    }
}
