//! Property tests of the laws the model promises, through the public API (the simulator's own laws are in
//! `src/model/simulate/laws.rs`): sharding never changes totals; number canonicalisation agrees with decimal
//! arithmetic, is idempotent and orders by value; partitions tile the hash space after any splits; capacity's
//! served + throttled = demand; key expressions render back to what they parse, and parsing never panics.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed step fails the test

use std::cmp::Ordering;

use proptest::prelude::*;
use shardlens::model::capacity::{
    Billing, Consistency, ItemSize, PartitionCount, RateSource, Workload, compute,
};
use shardlens::model::key::{KeyError, KeyType, canonical_partition_key, compare_keys};
use shardlens::model::keyexpr::{self, AttrPath, Format, MAX_BUCKETS, MAX_PREFIX, Part};
use shardlens::model::shard::{MAX_SHARDS, PhysicalKey, ShardBy};
use shardlens::model::{KeySet, Partitioner, Scope, ShardPlan, Strategy as Scheme, key_hash};

// ---------------------------------------------------------------------------------------------------------
// Sharding

/// A key set: a few distinct keys, most with small counts, some hot.
fn key_set() -> impl Strategy<Value = KeySet> {
    prop::collection::vec(
        (
            "[a-z#0-9]{1,8}",
            prop_oneof![4 => 1u64..50, 1 => 50u64..5_000, 1 => 5_000u64..60_000],
        ),
        0..40,
    )
    .prop_map(|keys| {
        let mut set = KeySet::new(KeyType::S);
        for (k, c) in keys {
            set.add(k.as_bytes(), c);
        }
        set
    })
}

fn plan() -> impl Strategy<Value = ShardPlan> {
    (
        0u32..=MAX_SHARDS + 20,
        prop_oneof![
            Just(Scheme::Random),
            Just(Scheme::Calculated),
            Just(Scheme::RoundRobin)
        ],
        prop_oneof![
            Just(Scope::All),
            (0.0f64..1.0).prop_map(|threshold| Scope::Hot { threshold })
        ],
        prop_oneof![Just("#".to_owned()), "[._#-]{0,3}"],
        any::<u64>(),
    )
        .prop_map(|(shards, strategy, scope, separator, seed)| ShardPlan {
            shards,
            strategy,
            scope,
            separator,
            seed,
        })
}

/// `--shard-by` values: per key some `(value hash, writes)` entries, which may claim more writes than the key
/// has (and keys it does not have).
fn shard_by() -> impl Strategy<Value = Option<ShardBy>> {
    prop::option::of(
        (
            prop::collection::vec((0u32..45, any::<u64>(), 1u64..3_000), 0..60),
            0u64..100,
        )
            .prop_map(|(entries, missing)| {
                let mut by = ShardBy::default();
                for (key, hash, writes) in entries {
                    by.add(key, hash, writes);
                }
                by.missing = missing;
                by.finish();
                by
            }),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Every strategy and scope, with or without `--shard-by`: the physical keys carry exactly the logical
    /// counts, key by key; only keys in scope are split, each over at most `shards` suffixes; a sub-key's hash
    /// is the hash of its text; and partitions of the physical keys still count every write.
    #[test]
    fn sharding_never_changes_totals(keys in key_set(), p in plan(), by in shard_by(), n in 1usize..70) {
        let sharded = p.apply_by(&keys, by.as_ref());
        let physical: Vec<(PhysicalKey, u64, u64)> = sharded.physical(&keys).collect();
        prop_assert_eq!(physical.iter().map(|x| x.2).sum::<u64>(), keys.total());
        prop_assert_eq!(sharded.hashed_counts(&keys).map(|(_, c)| c).sum::<u64>(), keys.total());
        prop_assert_eq!(physical.len(), sharded.physical_len(&keys));
        let shards = p.shards.min(MAX_SHARDS);
        for (i, _, count) in keys.iter() {
            let parts: Vec<&(PhysicalKey, u64, u64)> = physical.iter().filter(|x| x.0.key == i).collect();
            prop_assert_eq!(parts.iter().map(|x| x.2).sum::<u64>(), count, "key {}", i);
            if sharded.is_sharded(i) {
                prop_assert!(p.is_active());
                prop_assert!(parts.len() as u32 <= shards && parts.iter().all(|x| x.2 > 0));
                if let Scope::Hot { threshold } = p.scope {
                    prop_assert!(count as f64 > threshold * keys.total() as f64);
                }
            } else {
                prop_assert_eq!(parts.len(), 1);
                prop_assert_eq!(parts[0].0.shard, None);
                prop_assert_eq!(parts[0].1, keys.hash(i));
            }
        }
        for s in &sharded.subkeys {
            prop_assert!(s.shard < shards);
            let label = sharded.label(&keys, PhysicalKey { key: s.key, shard: Some(s.shard) });
            prop_assert_eq!(s.hash, key_hash(label.as_bytes()));
        }
        let buckets = Partitioner::equal(n).bucket_counts(sharded.hashed_counts(&keys));
        prop_assert_eq!(buckets.iter().sum::<u64>(), keys.total());
        // Deterministic: the same plan on the same keys gives the same split.
        prop_assert_eq!(&p.apply_by(&keys, by.as_ref()).subkeys, &sharded.subkeys);
    }
}

// ---------------------------------------------------------------------------------------------------------
// Numbers

/// A number in DynamoDB's range as sign, mantissa `m` (1 to 38 digits, no trailing zero) and exponent `e`:
/// the value `±m × 10^e`, its leading digit at 10^(e + digits − 1) in −130..=125.
#[derive(Debug, Clone, Copy)]
struct Num {
    negative: bool,
    m: u128,
    e: i32,
}

fn digits(m: u128) -> i32 {
    m.to_string().len() as i32
}

impl Num {
    fn new(negative: bool, mut m: u128, mut e: i32) -> Self {
        while m != 0 && m.is_multiple_of(10) {
            m /= 10;
            e += 1;
        }
        Self { negative, m, e }
    }

    /// The value's identity: equal values, equal tuples.
    fn key(self) -> (bool, u128, i32) {
        if self.m == 0 {
            (false, 0, 0)
        } else {
            (self.negative, self.m, self.e)
        }
    }

    /// Orders by value with integer arithmetic: sign, then the leading digit's power, then the mantissas
    /// aligned to the same number of digits (at most 38, so within a u128).
    fn cmp_value(self, o: Self) -> Ordering {
        let sign = |n: Self| {
            if n.m == 0 {
                0
            } else if n.negative {
                -1
            } else {
                1
            }
        };
        let (sa, sb) = (sign(self), sign(o));
        if sa != sb || sa == 0 {
            return sa.cmp(&sb);
        }
        let (da, db) = (digits(self.m), digits(o.m));
        let magnitude = (self.e + da).cmp(&(o.e + db)).then_with(|| {
            let width = da.max(db);
            let align = |m: u128, d: i32| m * 10u128.pow((width - d) as u32);
            align(self.m, da).cmp(&align(o.m, db))
        });
        if sa < 0 {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

fn mantissa() -> impl Strategy<Value = u128> {
    (1u32..=38).prop_flat_map(|k| 10u128.pow(k - 1)..10u128.pow(k))
}

fn num() -> impl Strategy<Value = Num> {
    prop_oneof![
        20 => (any::<bool>(), mantissa(), -130i32..=125).prop_map(|(negative, m, lead)| {
            let n = Num::new(negative, m, 0);
            Num::new(negative, n.m, lead - digits(n.m) + 1)
        }),
        // Zero, with any sign and exponent (`-0E999` is 0).
        1 => (any::<bool>(), -999i32..999).prop_map(|(negative, e)| Num { negative, m: 0, e }),
    ]
}

/// Whether the value is one DynamoDB takes: zero, or its leading digit at 10^-130 to 10^125.
fn in_range(n: &Num) -> bool {
    n.m == 0 || (-130..=125).contains(&(n.e + digits(n.m) - 1))
}

/// Ways of writing one number, as DynamoDB accepts them.
#[derive(Debug, Clone)]
struct Spelling {
    /// Zeros appended to the mantissa (the exponent lowered to match).
    trailing: u32,
    leading: u32,
    /// Digits after the decimal point, counted from the right of the (zero-padded) mantissa.
    point: Option<u32>,
    lower_e: bool,
    plus_sign: bool,
    plus_exp: bool,
    /// Write it without an exponent when that is short enough.
    plain: bool,
}

fn spelling() -> impl Strategy<Value = Spelling> {
    (
        0u32..6,
        0u32..4,
        prop::option::of(0u32..45),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(trailing, leading, point, lower_e, plus_sign, plus_exp, plain)| Spelling {
                trailing,
                leading,
                point,
                lower_e,
                plus_sign,
                plus_exp,
                plain,
            },
        )
}

impl Num {
    fn spell(self, s: &Spelling) -> String {
        let mut body = format!("{}{}", self.m, "0".repeat(s.trailing as usize));
        let mut exp = i64::from(self.e) - i64::from(s.trailing);
        if s.plain && (-60..=60).contains(&exp) {
            // Plain decimal: all the zeros written out.
            if exp >= 0 {
                body.push_str(&"0".repeat(exp as usize));
            } else {
                let frac = (-exp) as usize;
                if body.len() <= frac {
                    body = format!("{}{body}", "0".repeat(frac - body.len() + 1));
                }
                body.insert(body.len() - frac, '.');
            }
            body = format!("{}{body}", "0".repeat(s.leading as usize));
            return format!("{}{body}", self.sign(s));
        }
        if let Some(p) = s.point {
            let p = p as usize;
            if body.len() <= p {
                body = format!("{}{body}", "0".repeat(p - body.len()));
            }
            body.insert(body.len() - p, '.');
            exp += p as i64;
        }
        let body = format!("{}{body}", "0".repeat(s.leading as usize));
        let e = if s.lower_e { 'e' } else { 'E' };
        let exp_sign = if exp >= 0 && s.plus_exp { "+" } else { "" };
        format!("{}{body}{e}{exp_sign}{exp}", self.sign(s))
    }

    fn sign(self, s: &Spelling) -> &'static str {
        match (self.negative, s.plus_sign) {
            (true, _) => "-",
            (false, true) => "+",
            (false, false) => "",
        }
    }
}

fn canonical(text: &str) -> Vec<u8> {
    canonical_partition_key(text.as_bytes(), KeyType::N).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

/// A second number near the first, so equal and adjacent values come up often.
fn near(n: Num) -> impl Strategy<Value = Num> {
    prop_oneof![
        Just(n),
        Just(Num::new(!n.negative, n.m, n.e)),
        (1i32..3).prop_map(move |d| Num::new(n.negative, n.m, n.e - d)),
        Just(Num::new(n.negative, n.m.saturating_sub(1).max(1), n.e)),
        Just(Num::new(n.negative, (n.m + 1).min(10u128.pow(38) - 1), n.e)),
        num(),
    ]
    // 99…9 + 1 may carry past the top of the range.
    .prop_filter("in DynamoDB's range", in_range)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// Every spelling of one value gives one canonical key, which canonicalises to itself.
    #[test]
    fn spellings_of_a_value_are_one_key(n in num(), a in spelling(), b in spelling()) {
        let (x, y) = (n.spell(&a), n.spell(&b));
        let cx = canonical(&x);
        prop_assert_eq!(&cx, &canonical(&y), "{} vs {}", x, y);
        let text = String::from_utf8(cx.clone()).unwrap();
        prop_assert_eq!(&canonical(&text), &cx, "not idempotent: {}", text);
    }

    /// Equal values ⇔ equal canonical bytes, and keys order as the values do.
    #[test]
    fn canonical_bytes_agree_with_the_values(
        (a, b) in num().prop_flat_map(|a| (Just(a), near(a))),
        sa in spelling(),
        sb in spelling(),
    ) {
        let (x, y) = (a.spell(&sa), b.spell(&sb));
        let (cx, cy) = (canonical(&x), canonical(&y));
        prop_assert_eq!(cx == cy, a.key() == b.key(), "{} vs {}", x, y);
        prop_assert_eq!(compare_keys(&cx, &cy, KeyType::N), a.cmp_value(b), "{} vs {}", x, y);
    }

    /// Just past the range, or one digit too precise, is an error, never a rounded key.
    #[test]
    fn out_of_range_and_too_precise_are_errors(negative in any::<bool>(), m in mantissa(), s in spelling()) {
        let n = Num::new(negative, m, 0);
        let d = digits(n.m);
        let big = Num::new(negative, n.m, 126 - d + 1);
        let small = Num::new(negative, n.m, -131 - d + 1);
        for out in [big, small] {
            let text = out.spell(&s);
            let err = canonical_partition_key(text.as_bytes(), KeyType::N);
            prop_assert!(matches!(err, Err(KeyError::OutOfRange(_))), "{}: {:?}", text, err);
        }
        if d == 38 {
            // 39 significant digits: append a non-zero digit.
            let text = format!("{}{}7", if negative { "-" } else { "" }, n.m);
            let err = canonical_partition_key(text.as_bytes(), KeyType::N);
            prop_assert!(matches!(err, Err(KeyError::TooPrecise(_))), "{}: {:?}", text, err);
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Partitions

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Equal partitions, then any splits: the ranges start at 0, follow one another with no gap or overlap,
    /// end at u64::MAX, and every hash is owned by the range that holds it. A split adds one partition unless
    /// the range is a single hash.
    #[test]
    fn partitions_tile_the_hash_space_after_any_splits(
        n in 1usize..40,
        splits in prop::collection::vec(any::<prop::sample::Index>(), 0..80),
        hashes in prop::collection::vec(any::<u64>(), 16),
    ) {
        let mut p = Partitioner::equal(n);
        for s in &splits {
            let i = s.index(p.len());
            let r = p.range(i);
            let single = r.start() == r.end();
            let before = p.len();
            prop_assert_eq!(p.split(i), !single);
            prop_assert_eq!(p.len(), before + usize::from(!single));
        }
        prop_assert_eq!(*p.range(0).start(), 0);
        prop_assert_eq!(*p.range(p.len() - 1).end(), u64::MAX);
        for i in 0..p.len() {
            let r = p.range(i);
            prop_assert!(r.start() <= r.end());
            if i + 1 < p.len() {
                prop_assert_eq!(r.end() + 1, *p.range(i + 1).start());
            }
            prop_assert_eq!(p.partition_of(*r.start()), i);
            prop_assert_eq!(p.partition_of(*r.end()), i);
        }
        for &h in &hashes {
            let i = p.partition_of(h);
            prop_assert!(p.range(i).contains(&h));
        }
        let counts = p.bucket_counts(hashes.iter().map(|&h| (h, 3)));
        prop_assert_eq!(counts.iter().sum::<u64>(), 3 * hashes.len() as u64);
    }
}

// ---------------------------------------------------------------------------------------------------------
// Capacity

fn workload() -> impl Strategy<Value = Workload> {
    (
        0.0f64..200_000.0,
        0.0f64..100_000.0,
        prop_oneof![
            Just(Consistency::Strong),
            Just(Consistency::Eventual),
            Just(Consistency::Transactional)
        ],
        1u64..400 * 1024,
        prop_oneof![
            Just(Billing::OnDemand),
            (1u64..100_000, 1u64..40_000).prop_map(|(rcu, wcu)| Billing::Provisioned { rcu, wcu }),
        ],
        prop_oneof![
            Just(PartitionCount::Auto),
            (1usize..48).prop_map(PartitionCount::Override)
        ],
        0u64..400 << 30,
        prop_oneof![
            Just(RateSource::Weights),
            Just(RateSource::WritesPerSec),
            Just(RateSource::ReadsPerSec)
        ],
    )
        .prop_map(
            |(reads, writes, consistency, bytes, billing, partitions, table_bytes, rates)| {
                Workload {
                    reads_per_sec: reads,
                    writes_per_sec: writes,
                    consistency,
                    item_size: ItemSize::Bytes(bytes),
                    billing,
                    partitions,
                    table_bytes,
                    rates,
                }
            },
        )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Per partition and for the table, reads and writes: served + throttled = demand, served within the
    /// partition's limit and, in total, the table's capacity; the partitions' demand adds up to the table's.
    #[test]
    fn served_plus_throttled_is_demand(
        w in workload(),
        counts in prop::collection::vec(prop_oneof![Just(0u64), 0u64..10_000], 48..49),
    ) {
        let Ok(plan) = w.partition_plan() else {
            return Ok(());
        };
        let buckets: Vec<u64> = counts.iter().copied().cycle().take(plan.count).collect();
        let c = compute(&w, &plan, &buckets).unwrap();
        prop_assert_eq!(c.partitions.len(), plan.count);
        for p in &c.partitions {
            prop_assert!(close(p.served_read_units + p.throttled_read_units, p.read_units));
            prop_assert!(close(p.served_write_units + p.throttled_write_units, p.write_units));
            prop_assert!(p.served_read_units >= 0.0 && p.throttled_read_units >= -1e-9);
            prop_assert!(p.served_write_units >= 0.0 && p.throttled_write_units >= -1e-9);
            prop_assert!(p.served_read_units <= plan.read_limit * (1.0 + 1e-12));
            prop_assert!(p.served_write_units <= plan.write_limit * (1.0 + 1e-12));
        }
        prop_assert!(close(c.served_read_units + c.throttled_read_units, c.read_units));
        prop_assert!(close(c.served_write_units + c.throttled_write_units, c.write_units));
        prop_assert!(c.served_read_units <= plan.table_read_capacity * (1.0 + 1e-9));
        prop_assert!(c.served_write_units <= plan.table_write_capacity * (1.0 + 1e-9));
        prop_assert!(close(c.partitions.iter().map(|p| p.read_units).sum(), c.read_units));
        prop_assert!(close(c.partitions.iter().map(|p| p.write_units).sum(), c.write_units));
        prop_assert!(c.table_throttled_read_units <= c.throttled_read_units + 1e-6);
        prop_assert!(c.table_throttled_write_units <= c.throttled_write_units + 1e-6);
        // With counts as weights, the whole rate lands somewhere (when there is anything to weigh).
        let total: u64 = buckets.iter().sum();
        if w.rates == RateSource::Weights && total > 0 {
            prop_assert!(close(c.read_units, w.reads_per_sec * w.units_per_read()));
            prop_assert!(close(c.write_units, w.writes_per_sec * w.units_per_write()));
        }
        if w.rates == RateSource::WritesPerSec {
            prop_assert!(close(c.write_units, total as f64 * w.units_per_write()));
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Key expressions

/// Attribute names and literal text from characters the syntax gives meaning to, and others.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-zA-Z_][a-zA-Z0-9_#-]{0,6}",
        1 => "[ .:{}`a-z0-9é日\t]{1,6}",
        1 => Just("random".to_owned()),
        1 => Just("0".to_owned()),
    ]
}

fn format() -> impl Strategy<Value = Format> {
    prop_oneof![
        3 => Just(Format::Text),
        1 => Just(Format::Day),
        1 => Just(Format::Hour),
        1 => Just(Format::Month),
        1 => Just(Format::Year),
        1 => prop_oneof![1u32..20, Just(MAX_PREFIX)].prop_map(Format::First),
        1 => prop_oneof![1u32..100, Just(MAX_BUCKETS)].prop_map(Format::Hash),
    ]
}

fn part() -> impl Strategy<Value = Part> {
    prop_oneof![
        2 => "[a-zA-Z0-9#_ {}:.`-]{1,8}".prop_map(Part::Text),
        3 => (prop::collection::vec(name(), 1..4), format())
            .prop_map(|(segments, format)| Part::Attr { path: AttrPath::new(segments).unwrap(), format }),
        1 => prop_oneof![1u32..50, Just(MAX_BUCKETS)].prop_map(Part::Random),
    ]
}

/// Writes parts as an expression by hand, differently from `Display`: every name in backticks, white space
/// where the syntax allows it (`ws`), formats in any case.
fn write_by_hand(parts: &[Part], ws: &str, upper: bool) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Text(t) => out.push_str(&t.replace('{', "{{").replace('}', "}}")),
            Part::Random(n) => out.push_str(&format!("{{{ws}random {n}{ws}}}")),
            Part::Attr { path, format } => {
                let names: Vec<String> = path
                    .segments()
                    .iter()
                    .map(|s| format!("`{}`", s.replace('`', "``")))
                    .collect();
                let f = match format {
                    Format::Text => String::new(),
                    Format::Day => ":day".into(),
                    Format::Hour => ":hour".into(),
                    Format::Month => ":month".into(),
                    Format::Year => ":year".into(),
                    Format::First(n) => format!(":first {n}"),
                    Format::Hash(n) => format!(":hash {n}"),
                };
                let f = if upper { f.to_uppercase() } else { f };
                let f = f.replacen(':', &format!("{ws}:{ws}"), 1);
                out.push_str(&format!("{{{ws}{}{f}{ws}}}", names.join(".")));
            }
        }
    }
    out
}

/// Adjacent literal text is one part.
fn merged(parts: Vec<Part>) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::new();
    for p in parts {
        match (out.last_mut(), p) {
            (Some(Part::Text(a)), Part::Text(b)) => a.push_str(&b),
            (_, p) => out.push(p),
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Parts written out by hand parse to those parts, and `Display` writes an expression that parses back to
    /// the same expression.
    #[test]
    fn expressions_render_back_to_what_they_parse(
        parts in prop::collection::vec(part(), 1..6),
        ws in prop_oneof![Just(""), Just(" "), Just(" \t ")],
        upper in any::<bool>(),
    ) {
        let text = write_by_hand(&parts, ws, upper);
        let e = keyexpr::parse(&text).unwrap_or_else(|err| panic!("{text:?}: {err}"));
        let want = merged(parts);
        prop_assert_eq!(e.parts(), want.as_slice(), "{}", text);
        let shown = e.to_string();
        let again = keyexpr::parse(&shown);
        prop_assert_eq!(again.as_ref(), Ok(&e), "{} shown as {}", text, shown);
    }

    /// Any text: `parse` returns (no panic), an error's column is within the text (or just past its end), and
    /// what parses renders back to itself.
    #[test]
    fn parse_never_panics_and_what_parses_round_trips(
        text in prop_oneof![
            any::<String>(),
            "[{}`:. a-z0-9]{0,24}",
            prop::collection::vec(
                prop_oneof![
                    Just("{"), Just("}"), Just("{{"), Just("}}"), Just("`"), Just(":"), Just("."), Just(" "),
                    Just("random "), Just("hash "), Just("first "), Just("day"), Just("a"), Just("7"),
                    Just("4294967296"), Just("-1"), Just("é"),
                ],
                0..16,
            )
            .prop_map(|v| v.concat()),
        ],
    ) {
        match keyexpr::parse(&text) {
            Ok(e) => {
                let shown = e.to_string();
                let again = keyexpr::parse(&shown);
                prop_assert_eq!(again.as_ref(), Ok(&e), "{:?} shown as {:?}", text, shown);
            }
            Err(err) => {
                prop_assert!(err.column >= 1 && err.column <= text.chars().count() + 1, "{:?}: {}", text, err);
            }
        }
    }
}
