//! SQL that turns an incremental export too big for one machine into a trace shardlens replays
//! (`shardlens sql --trace`): each record's last-write time (`Metadata.WriteTimestampMicros`) and partition key,
//! counted per minute and key where the export lives (DuckDB, or Athena over S3). The busiest `top` keys keep
//! their own rows; every other key of a minute is one row standing for `keys` distinct keys, which the replay
//! spreads evenly over that many keys (**\[ours\]**: their shares are not kept). The CSV's columns are those of
//! a request log with counts: `time` (the minute's start, epoch seconds), `key`, `op`, `requests`, `seconds`
//! (the period the requests spread over) and `keys`.
//!
//! Pure text: nothing here runs a query. `tests/cli.rs` runs the DuckDB one on a generated export.

use crate::source::sql::{athena_ident, duckdb_s3_preamble, json_path_name, sql_str};

/// What to aggregate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceQuery {
    /// The incremental export folder (`s3://…` or a local path), without a trailing `/`.
    pub export_path: String,
    /// Partition key attribute.
    pub key: String,
    /// Keys that keep their own rows (the busiest over the whole export).
    pub top: u32,
    /// Where DuckDB writes the CSV.
    pub output: String,
    /// The Athena table to create.
    pub athena_table: String,
}

impl TraceQuery {
    fn data_glob(&self) -> String {
        format!("{}/data/*.json.gz", self.export_path.trim_end_matches('/'))
    }

    /// The DuckDB script: the per-minute, per-key trace CSV.
    pub fn duckdb(&self) -> String {
        let path = |t: &str| sql_str(&format!("$.{}.{t}", json_path_name(&self.key)));
        let key = format!(
            "coalesce(json_extract_string(Keys, {}), json_extract_string(Keys, {}), json_extract_string(Keys, {}))",
            path("S"),
            path("N"),
            path("B")
        );
        let s3 = duckdb_s3_preamble(&self.export_path);
        format!(
            "-- shardlens: an incremental export's writes per minute and key, aggregated by DuckDB.\n\
             -- Replay the result with: shardlens simulate --trace {out}\n\
             {s3}\
             CREATE TEMP VIEW shardlens_writes AS\n  \
               SELECT CAST(json_extract_string(Metadata, '$.WriteTimestampMicros.N') AS BIGINT) // 60000000 * 60 AS minute,\n         \
                      {key} AS key\n  \
               FROM read_json({glob}, format = 'newline_delimited', columns = {{Metadata: 'JSON', Keys: 'JSON'}});\n\
             COPY (\n  \
               WITH per AS (\n    \
                 SELECT minute, key, count(*) AS requests FROM shardlens_writes\n    \
                 WHERE key IS NOT NULL AND minute IS NOT NULL GROUP BY minute, key\n  \
               ),\n  \
               top AS (SELECT key FROM per GROUP BY key ORDER BY sum(requests) DESC, key LIMIT {top})\n  \
               SELECT minute AS time, key, 'write' AS op, requests, 60 AS seconds, 1 AS keys\n  \
               FROM per WHERE key IN (SELECT key FROM top)\n  \
               UNION ALL\n  \
               SELECT minute, 'other', 'write', sum(requests), 60, count(*)\n  \
               FROM per WHERE key NOT IN (SELECT key FROM top) GROUP BY minute\n  \
               ORDER BY time, key\n\
             ) TO {out_q} (HEADER, DELIMITER ',');\n",
            glob = sql_str(&self.data_glob()),
            top = self.top,
            out = self.output,
            out_q = sql_str(&self.output),
        )
    }

    /// The Athena statements: the external table over the data files, then the trace query (download its
    /// result as CSV).
    pub fn athena(&self) -> String {
        let table = athena_ident(&self.athena_table);
        let k = athena_ident(&self.key.to_ascii_lowercase());
        let location = format!("{}/data/", self.export_path.trim_end_matches('/'));
        format!(
            "-- shardlens: an incremental export's writes per minute and key, aggregated by Athena.\n\
             -- Download the query's result as CSV, then: shardlens simulate --trace result.csv\n\
             CREATE EXTERNAL TABLE IF NOT EXISTS {table} (\n  \
               metadata struct<writetimestampmicros:struct<n:string>>,\n  \
               keys struct<{k}:struct<s:string,n:string,b:string>>\n\
             )\n\
             ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'\n\
             LOCATION {location};\n\
             \n\
             WITH per AS (\n  \
               SELECT CAST(metadata.writetimestampmicros.n AS bigint) / 60000000 * 60 AS minute,\n         \
                      coalesce(keys.{k}.s, keys.{k}.n, keys.{k}.b) AS key, count(*) AS requests\n  \
               FROM {table}\n  \
               WHERE metadata.writetimestampmicros.n IS NOT NULL\n  \
               GROUP BY 1, 2\n\
             ),\n\
             top AS (SELECT key FROM per WHERE key IS NOT NULL GROUP BY key ORDER BY sum(requests) DESC LIMIT {top})\n\
             SELECT minute AS time, key, 'write' AS op, requests, 60 AS seconds, 1 AS keys\n\
             FROM per WHERE key IN (SELECT key FROM top)\n\
             UNION ALL\n\
             SELECT minute, 'other', 'write', sum(requests), 60, count(*)\n\
             FROM per WHERE key IS NOT NULL AND key NOT IN (SELECT key FROM top) GROUP BY minute\n\
             ORDER BY 1, 2;\n",
            top = self.top,
            location = sql_str(&location),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(path: &str) -> TraceQuery {
        TraceQuery {
            export_path: path.to_owned(),
            key: "pk".to_owned(),
            top: 100,
            output: "trace.csv".to_owned(),
            athena_table: "shardlens_trace".to_owned(),
        }
    }

    #[test]
    fn duckdb_reads_the_write_times_and_keys_per_minute() {
        let q = query("/data/AWSDynamoDB/0170-abc").duckdb();
        assert!(
            q.contains("'/data/AWSDynamoDB/0170-abc/data/*.json.gz'"),
            "{q}"
        );
        assert!(q.contains("WriteTimestampMicros.N"));
        assert!(q.contains("LIMIT 100"));
        assert!(q.contains("TO 'trace.csv'"));
        assert!(!q.contains("httpfs"));
        assert!(query("s3://b/p").duckdb().contains("LOAD httpfs"));
    }

    #[test]
    fn athena_creates_a_table_over_the_data_files() {
        let q = query("s3://b/AWSDynamoDB/0170-abc/").athena();
        assert!(
            q.contains("LOCATION 's3://b/AWSDynamoDB/0170-abc/data/'"),
            "{q}"
        );
        assert!(
            q.contains("keys struct<pk:struct<s:string,n:string,b:string>>"),
            "{q}"
        );
    }
}
