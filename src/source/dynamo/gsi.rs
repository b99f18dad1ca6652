//! A table's global secondary indexes as key designs: each wanted index's key schema, from DescribeTable, as a
//! [`GsiSpec`] that a scan evaluates on every item it reads (GSIs are sparse: items without the index's key
//! attributes are counted as absent).

use super::table::{IndexInfo, TableInfo};
use crate::model::design::{GsiSpec, Projection};
use crate::model::keyexpr::{AttrPath, Expr, KeyTuple, MAX_KEY_ATTRIBUTES};

/// The key designs of the global secondary indexes `wanted` names on `info`'s table, in the order asked for
/// (each once): `"*"` or `"all"` is every one of them. A name the table does not have is an error that lists
/// the ones it has.
pub fn gsi_designs(info: &TableInfo, wanted: &[String]) -> Result<Vec<GsiSpec>, String> {
    let mut picked: Vec<&IndexInfo> = Vec::new();
    for name in wanted {
        let name = name.trim();
        if name == "*" || name.eq_ignore_ascii_case("all") {
            picked.extend(info.global_indexes.iter());
            continue;
        }
        match info.global_indexes.iter().find(|g| g.name == name) {
            Some(g) => picked.push(g),
            None => return Err(no_such_index(info, name)),
        }
    }
    let mut specs: Vec<GsiSpec> = Vec::new();
    for g in picked {
        if specs.iter().any(|s| s.name == g.name) {
            continue;
        }
        specs.push(spec(info, g)?);
    }
    Ok(specs)
}

fn spec(info: &TableInfo, g: &IndexInfo) -> Result<GsiSpec, String> {
    let whose = || format!("the index {:?} of table {}", g.name, info.name);
    for (role, attrs) in [("partition", &g.partition_keys), ("sort", &g.sort_keys)] {
        if attrs.len() > MAX_KEY_ATTRIBUTES {
            return Err(format!(
                "{} has {} {role}-key attributes; a key has at most {MAX_KEY_ATTRIBUTES}",
                whose(),
                attrs.len()
            ));
        }
    }
    // Every HASH attribute, hashed together in order (a multi-attribute key); none is an error.
    let parts = g
        .partition_keys
        .iter()
        .map(|a| Expr::attribute(a))
        .collect::<Option<Vec<Expr>>>()
        .and_then(KeyTuple::new)
        .ok_or_else(|| format!("{} has no partition key in its description", whose()))?;
    let sort_key = g
        .sort_keys
        .iter()
        .map(|a| AttrPath::new(vec![a.clone()]))
        .collect::<Option<Vec<AttrPath>>>()
        .ok_or_else(|| format!("{} has an empty sort key attribute name", whose()))?;
    Ok(GsiSpec {
        name: g.name.clone(),
        key: parts,
        sort_key,
        projection: match g.projection.as_str() {
            "KEYS_ONLY" => Projection::KeysOnly,
            "INCLUDE" => Projection::Include(g.included.clone()),
            _ => Projection::All,
        },
    })
}

fn no_such_index(info: &TableInfo, name: &str) -> String {
    let names: Vec<&str> = info
        .global_indexes
        .iter()
        .map(|g| g.name.as_str())
        .collect();
    if names.is_empty() {
        format!(
            "table {} has no index {name:?}; it has no global secondary indexes",
            info.name
        )
    } else {
        format!(
            "table {} has no index {name:?}; its global secondary indexes: {}",
            info.name,
            names.join(", ")
        )
    }
}

/// One line for a GSI's checkbox or a listing: `byStatus (status)`, `byDay (day, sort key at)`; a
/// multi-attribute key joins its attributes with `+` (`byTR (tournamentId+region, sort key round+bracket)`).
pub fn describe_index(g: &IndexInfo) -> String {
    let pk = g.partition_keys.join("+");
    if g.sort_keys.is_empty() {
        format!("{} ({pk})", g.name)
    } else {
        format!("{} ({pk}, sort key {})", g.name, g.sort_keys.join("+"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::KeyType;
    use crate::source::dynamo::{Billing, KeyAttribute};

    fn table(gsis: &[(&str, &str, Option<&str>)]) -> TableInfo {
        TableInfo {
            name: "Orders".into(),
            status: "ACTIVE".into(),
            partition_key: KeyAttribute {
                name: "pk".into(),
                key_type: KeyType::S,
            },
            sort_key: None,
            billing: Billing::OnDemand,
            item_count: None,
            size_bytes: None,
            local_indexes: Vec::new(),
            global_indexes: gsis
                .iter()
                .map(|(name, pk, sk)| IndexInfo {
                    name: (*name).into(),
                    partition_keys: pk.split('+').map(Into::into).collect(),
                    sort_keys: sk
                        .iter()
                        .flat_map(|s| s.split('+'))
                        .map(Into::into)
                        .collect(),
                    projection: "KEYS_ONLY".into(),
                    included: Vec::new(),
                })
                .collect(),
            stream_arn: None,
            throughput: Default::default(),
            index_throughput: Default::default(),
        }
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn wanted_indexes_become_designs() {
        let t = table(&[("byStatus", "status", None), ("byDay", "day", Some("at"))]);
        let got = gsi_designs(&t, &names(&["byDay"])).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].name, "byDay");
        assert_eq!(got[0].key, KeyTuple::one(Expr::attribute("day").unwrap()));
        assert_eq!(
            got[0].sort_key,
            vec![AttrPath::new(vec!["at".into()]).unwrap()]
        );
        let all = gsi_designs(&t, &names(&["byDay", "*"])).unwrap();
        let order: Vec<&str> = all.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(
            order,
            ["byDay", "byStatus"],
            "each once, in the order asked"
        );
        assert_eq!(gsi_designs(&t, &names(&["all"])).unwrap().len(), 2);
        assert!(gsi_designs(&t, &[]).unwrap().is_empty());
        assert_eq!(
            describe_index(&t.global_indexes[1]),
            "byDay (day, sort key at)"
        );
    }

    #[test]
    fn a_multi_attribute_index_hashes_every_partition_key_attribute() {
        let t = table(&[("byTR", "tournamentId+region", Some("round+bracket"))]);
        let g = &gsi_designs(&t, &names(&["byTR"])).unwrap()[0];
        assert!(g.key.is_multi());
        assert_eq!(g.key.to_string(), "{tournamentId}+{region}");
        assert_eq!(g.sort_key.len(), 2);
        assert_eq!(
            describe_index(&t.global_indexes[0]),
            "byTR (tournamentId+region, sort key round+bracket)"
        );
        let five = table(&[("wide", "a+b+c+d+e", None)]);
        let err = gsi_designs(&five, &names(&["wide"])).unwrap_err();
        assert!(err.contains("5 partition-key attributes"), "{err}");
        assert!(err.contains("at most 4"), "{err}");
        let none = table(&[("x", "", None)]);
        assert!(gsi_designs(&none, &names(&["x"])).is_err());
    }

    #[test]
    fn an_unknown_index_lists_the_real_ones() {
        let t = table(&[("byStatus", "status", None), ("byDay", "day", None)]);
        assert_eq!(
            gsi_designs(&t, &names(&["byStatus", "x"])).unwrap_err(),
            "table Orders has no index \"x\"; its global secondary indexes: byStatus, byDay"
        );
        assert_eq!(
            gsi_designs(&table(&[]), &names(&["x"])).unwrap_err(),
            "table Orders has no index \"x\"; it has no global secondary indexes"
        );
        assert!(gsi_designs(&table(&[]), &names(&["*"])).unwrap().is_empty());
    }
}
