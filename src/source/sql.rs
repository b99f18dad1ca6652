//! SQL that aggregates an S3 export (`DYNAMODB_JSON`) where it lives, for tables too big to bring to one
//! machine: Athena (an external table over the export's data files, then `GROUP BY`) and DuckDB
//! (`read_json` over the data files, local or `s3://` with its httpfs extension). Each query yields the
//! `key,count` CSV that shardlens loads exactly (`shardlens analyze keys.csv`), and a per-data-file variant
//! (items and distinct keys per data file: AWS writes at least one data file per partition and a file's items
//! come from one partition's key range, so that is the real grouping by partition).
//!
//! Pure text: nothing here runs a query. `tests/cli.rs` runs the DuckDB one for real on a generated export.

/// What to aggregate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportQuery {
    /// The export folder `…/AWSDynamoDB/<export-id>` (`s3://…` or a local path), without a trailing `/`.
    pub export_path: String,
    /// Partition key attribute.
    pub key: String,
    /// Sort key attribute: adds an `items` column (distinct sort keys per partition key).
    pub sort_key: Option<String>,
    /// Where DuckDB writes the `key,count` CSV.
    pub output: String,
    /// Where DuckDB writes the per-data-file CSV.
    pub by_file_output: String,
    /// The Athena table to create.
    pub athena_table: String,
}

impl ExportQuery {
    fn data_glob(&self) -> String {
        format!("{}/data/*.json.gz", self.export_path.trim_end_matches('/'))
    }

    /// A DuckDB expression for one attribute's text, whatever its type (S, N or B).
    fn duck_attr(attr: &str) -> String {
        let path = |t: &str| sql_str(&format!("$.{}.{t}", json_path_name(attr)));
        format!(
            "coalesce(json_extract_string(Item, {}), json_extract_string(Item, {}), json_extract_string(Item, {}))",
            path("S"),
            path("N"),
            path("B")
        )
    }

    /// The DuckDB script: the `key,count` CSV, then the per-data-file CSV.
    pub fn duckdb(&self) -> String {
        let key = Self::duck_attr(&self.key);
        let (sk_col, sk_sel) = match &self.sort_key {
            Some(sk) => (
                ", count(DISTINCT sk) AS items".to_owned(),
                format!(", {} AS sk", Self::duck_attr(sk)),
            ),
            None => (String::new(), String::new()),
        };
        let source = format!(
            "read_json({}, format = 'newline_delimited', columns = {{Item: 'JSON'}}, filename = true)",
            sql_str(&self.data_glob())
        );
        let s3 = duckdb_s3_preamble(&self.export_path);
        format!(
            "-- shardlens: writes per partition key of an S3 export (DYNAMODB_JSON), aggregated by DuckDB.\n\
             -- Load the result with: shardlens analyze {out}\n\
             {s3}\
             CREATE TEMP VIEW shardlens_items AS\n  \
               SELECT filename AS data_file, {key} AS key{sk_sel}\n  \
               FROM {source};\n\
             COPY (\n  \
               SELECT key, count(*) AS count{sk_col}\n  \
               FROM shardlens_items WHERE key IS NOT NULL\n  \
               GROUP BY key ORDER BY count DESC, key\n\
             ) TO {out_q} (HEADER, DELIMITER ',');\n\
             -- Per data file (one partition's key range each): items and distinct keys.\n\
             COPY (\n  \
               SELECT data_file, count(*) AS items, count(DISTINCT key) AS distinct_keys\n  \
               FROM shardlens_items\n  \
               GROUP BY data_file ORDER BY items DESC, data_file\n\
             ) TO {by_q} (HEADER, DELIMITER ',');\n",
            out = self.output,
            out_q = sql_str(&self.output),
            by_q = sql_str(&self.by_file_output),
        )
    }

    /// The Athena statements: the external table, the `key,count` query, the per-data-file query.
    pub fn athena(&self) -> String {
        let table = athena_ident(&self.athena_table);
        let field = |attr: &str| {
            format!(
                "{}:struct<s:string,n:string,b:string>",
                athena_ident(&attr.to_ascii_lowercase())
            )
        };
        let mut fields = vec![field(&self.key)];
        if let Some(sk) = &self.sort_key
            && !sk.eq_ignore_ascii_case(&self.key)
        {
            fields.push(field(sk));
        }
        let attr = |a: &str| {
            let f = athena_ident(&a.to_ascii_lowercase());
            format!("coalesce(item.{f}.s, item.{f}.n, item.{f}.b)")
        };
        let key = attr(&self.key);
        let sk_col = self.sort_key.as_ref().map_or_else(String::new, |sk| {
            format!(", count(DISTINCT {}) AS items", attr(sk))
        });
        let location = format!("{}/data/", self.export_path.trim_end_matches('/'));
        format!(
            "-- shardlens: writes per partition key of an S3 export (DYNAMODB_JSON), aggregated by Athena.\n\
             -- Download the second query's result as CSV, then: shardlens analyze result.csv\n\
             CREATE EXTERNAL TABLE IF NOT EXISTS {table} (\n  \
               item struct<{fields}>\n\
             )\n\
             ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'\n\
             LOCATION {location};\n\
             \n\
             SELECT {key} AS key, count(*) AS count{sk_col}\n\
             FROM {table}\n\
             WHERE {key} IS NOT NULL\n\
             GROUP BY 1\n\
             ORDER BY 2 DESC;\n\
             \n\
             -- Per data file (one partition's key range each): items and distinct keys.\n\
             SELECT \"$path\" AS data_file, count(*) AS items, count(DISTINCT {key}) AS distinct_keys\n\
             FROM {table}\n\
             GROUP BY 1\n\
             ORDER BY 2 DESC;\n",
            fields = fields.join(", "),
            location = sql_str(&location),
        )
    }
}

/// What a DuckDB script needs first to read `path`: for `s3://` paths the httpfs extension and the AWS
/// credential chain; nothing for local paths.
pub(crate) fn duckdb_s3_preamble(path: &str) -> &'static str {
    if path.starts_with("s3://") {
        "-- s3:// paths need DuckDB's httpfs extension and AWS credentials:\n\
         INSTALL httpfs; LOAD httpfs;\n\
         CREATE SECRET IF NOT EXISTS (TYPE s3, PROVIDER credential_chain);\n"
    } else {
        ""
    }
}

/// A SQL string literal.
pub(crate) fn sql_str(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// An attribute name as a JSON path step: quoted, with `"` and `\` escaped.
pub(crate) fn json_path_name(attr: &str) -> String {
    format!("\"{}\"", attr.replace('\\', "\\\\").replace('"', "\\\""))
}

/// An Athena (Hive DDL / Trino) identifier: plain when it is one, else in backquotes.
pub(crate) fn athena_ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_owned()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(key: &str, sk: Option<&str>) -> ExportQuery {
        ExportQuery {
            export_path: "s3://b/p/AWSDynamoDB/0170-x/".into(),
            key: key.into(),
            sort_key: sk.map(Into::into),
            output: "keys.csv".into(),
            by_file_output: "by-file.csv".into(),
            athena_table: "shardlens_export".into(),
        }
    }

    #[test]
    fn quotes_names_and_paths() {
        let d = q("it's \"pk\"", Some("State#Date")).duckdb();
        assert!(d.contains(r#"'$."it''s \"pk\"".S'"#), "{d}");
        assert!(
            d.contains("'s3://b/p/AWSDynamoDB/0170-x/data/*.json.gz'"),
            "{d}"
        );
        assert!(d.contains("INSTALL httpfs"), "{d}");
        assert!(d.contains("count(DISTINCT sk) AS items"), "{d}");
        let a = q("PK", Some("State#Date")).athena();
        assert!(
            a.contains("item struct<pk:struct<s:string,n:string,b:string>, `state#date`:struct<"),
            "{a}"
        );
        assert!(
            a.contains("LOCATION 's3://b/p/AWSDynamoDB/0170-x/data/'"),
            "{a}"
        );
        assert!(a.contains("\"$path\" AS data_file"), "{a}");
        let local = ExportQuery {
            export_path: "/tmp/x".into(),
            ..q("pk", None)
        };
        assert!(!local.duckdb().contains("httpfs"));
    }
}
