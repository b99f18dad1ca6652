//! Short, secret-free messages for everything that can go wrong talking to DynamoDB.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::source::{Hint, Message};

/// A DynamoDB failure, as a short message. URLs and table names go last.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DynamoError {
    /// The endpoint is not an `http://` or `https://` URL; no request was sent.
    #[error("the endpoint is not a URL ({reason}; expected e.g. http://localhost:8000): {url}")]
    InvalidEndpoint { url: String, reason: String },
    /// The configuration is incomplete (no region, bad option), and what to do about it
    /// ([`crate::source::Hint`]).
    #[error("{0}")]
    Config(Message),
    /// The table does not exist (or is not visible to these credentials in this region).
    #[error("table not found (check the name, the region and the account): {table}")]
    TableNotFound { table: String },
    /// The table has no stream (DescribeTable has no `LatestStreamArn`): only its owner can turn one on.
    #[error("{}", no_stream(.table))]
    NoStream { table: String },
    /// No answer within the timeout.
    #[error("{operation}: no answer from the server (timed out after {:.1} s per attempt){}", .after.as_secs_f64(), at(.endpoint))]
    Timeout {
        operation: &'static str,
        after: Duration,
        endpoint: Option<String>,
    },
    /// No credentials, so no request was sent: the SDK's chain (environment, profile, web identity, container,
    /// instance metadata) came up empty (`reason` is `None`: its list of what each provider lacked is many
    /// lines of noise), or a provider failed (an expired SSO session, a bad profile: `reason` says). The last
    /// provider's failure ("failed to load IMDS session token") read as "cannot reach the server" before.
    #[error("{}", no_credentials_message(.operation, .reason, .endpoint))]
    NoCredentials {
        operation: &'static str,
        reason: Option<String>,
        endpoint: Option<String>,
    },
    /// The connection failed or broke (refused, reset, DNS, TLS).
    #[error("{operation}: cannot reach the server ({reason}){}", at(.endpoint))]
    Connect {
        operation: &'static str,
        reason: String,
        endpoint: Option<String>,
    },
    /// DynamoDB answered with an error.
    #[error("{operation}: {code}: {message}")]
    Service {
        operation: &'static str,
        code: String,
        message: String,
    },
    /// The server answered with an error that is not one of the service's (no error code could be read from
    /// it): at a custom endpoint, most likely a server that does not serve this service, or not in the protocol
    /// the SDK speaks (dynalite has no CloudWatch; moto's answers only JSON and query requests). It read as
    /// "GetMetricData: UnknownError: no message" before.
    #[error("{}", unreadable_message(.operation, *.status, .endpoint))]
    Unreadable {
        operation: &'static str,
        status: u16,
        endpoint: Option<String>,
    },
    /// Anything else (an unreadable response, a request that could not be built).
    #[error("{operation}: {reason}")]
    Other {
        operation: &'static str,
        reason: String,
    },
}

impl DynamoError {
    /// The error as a message with its hints, to be said in other words ([`Message::in_words`]).
    pub fn message(&self) -> Message {
        match self {
            Self::Config(m) => m.clone(),
            Self::NoCredentials {
                operation,
                reason,
                endpoint,
            } => no_credentials_message(operation, reason, endpoint),
            Self::NoStream { table } => no_stream(table),
            other => Message::new(other.to_string()),
        }
    }
}

/// The AWS service an operation belongs to, as its users name it.
fn service_of(operation: &str) -> &'static str {
    match operation {
        "GetMetricData" | "GetInsightRuleReport" => "CloudWatch",
        "DescribeStream" | "GetShardIterator" | "GetRecords" | "ListStreams" => "DynamoDB Streams",
        _ => "DynamoDB",
    }
}

fn unreadable_message(operation: &str, status: u16, endpoint: &Option<String>) -> String {
    let service = service_of(operation);
    match endpoint {
        // A custom endpoint (the target is otherwise "region …").
        Some(url) if url.starts_with("http") => format!(
            "{operation}: the server answered HTTP {status} without a {service} error: does it serve {service}? \
             (dynalite serves DynamoDB only; shardlens reads CloudWatch from AWS or LocalStack): {url}"
        ),
        other => format!(
            "{operation}: the server answered HTTP {status} without a {service} error{}",
            at(other)
        ),
    }
}

/// What a request without credentials needs: a profile or keys.
fn no_credentials_message(
    operation: &str,
    reason: &Option<String>,
    endpoint: &Option<String>,
) -> Message {
    let what = match reason {
        None => "no AWS credentials found".to_owned(),
        Some(r) => format!("cannot get AWS credentials ({r})"),
    };
    Message::hinted(
        format!("{operation}: {what}: "),
        Hint::Credentials,
        &at(endpoint),
    )
}

/// What a table without a stream needs: its owner's change (shardlens never makes one).
fn no_stream(table: &str) -> Message {
    Message::hinted(
        format!(
            "{table} has no stream, so its writes cannot be watched: its owner can turn one on (a change \
             shardlens never makes): "
        ),
        Hint::EnableStream,
        "",
    )
}

fn at(endpoint: &Option<String>) -> String {
    endpoint
        .as_deref()
        .map_or_else(String::new, |e| format!(": {e}"))
}

/// The credentials the client's requests carried, noted by [`NoteSentCredentials`], so that messages can be
/// scrubbed of them ([`DynamoError::scrubbed`]).
///
/// Why: an error message comes from the server (`message` of a JSON error, or a body the SDK could not
/// read), and shardlens prints it. A proxy or a fake endpoint that echoes the request's headers into it put
/// the access key id (in `Authorization`'s `Credential=`) and the session token (`X-Amz-Security-Token`) on
/// the screen and in the app's notices. The secret access key never leaves the machine (requests are signed
/// with it, not carry it), so it cannot come back this way. Values shorter than [`Self::MIN_LEN`] are not
/// noted: real key ids have 16 characters or more, while local servers take any keys (`test`, `local`), and
/// scrubbing those would blank out ordinary words in messages.
#[derive(Debug, Clone, Default)]
#[cfg_attr(
    target_arch = "wasm32",
    allow(dead_code, reason = "requests are sent by the SDK's client only")
)]
pub(crate) struct SentCredentials(Arc<Mutex<Vec<String>>>);

#[cfg_attr(
    target_arch = "wasm32",
    allow(dead_code, reason = "requests are sent by the SDK's client only")
)]
impl SentCredentials {
    pub(crate) const MIN_LEN: usize = 16;

    pub(super) fn note(&self, value: &str) {
        let value = value.trim();
        if value.len() < Self::MIN_LEN {
            return;
        }
        if let Ok(mut seen) = self.0.lock()
            && !seen.iter().any(|s| s == value)
        {
            seen.push(value.to_owned());
        }
    }

    /// `text` with every noted credential replaced by `[redacted]`.
    pub(crate) fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        if let Ok(seen) = self.0.lock() {
            for secret in seen.iter() {
                out = out.replace(secret.as_str(), "[redacted]");
            }
        }
        out
    }
}

/// Error codes DynamoDB uses for throttling: back off and try again.
pub(crate) const THROTTLING_CODES: [&str; 4] = [
    "ProvisionedThroughputExceededException",
    // DynamoDB Streams' answer to too many GetRecords calls on a shard.
    "LimitExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
];

/// Error codes of transient server trouble, worth a few retries.
pub(crate) const TRANSIENT_CODES: [&str; 3] = [
    "InternalServerError",
    "ServiceUnavailable",
    "InternalFailure",
];

impl DynamoError {
    /// This error with the credentials the requests carried scrubbed from every text it holds (see
    /// [`SentCredentials`]).
    #[cfg_attr(
        target_arch = "wasm32",
        allow(dead_code, reason = "requests are sent by the SDK's client only")
    )]
    pub(crate) fn scrubbed(self, sent: &SentCredentials) -> Self {
        match self {
            // A hinted message is the app's own words, with nothing the server said in it.
            Self::Config(text) if text.hints().next().is_none() => {
                Self::Config(sent.scrub(&text).into())
            }
            Self::Connect {
                operation,
                reason,
                endpoint,
            } => Self::Connect {
                operation,
                reason: sent.scrub(&reason),
                endpoint,
            },
            Self::NoCredentials {
                operation,
                reason,
                endpoint,
            } => Self::NoCredentials {
                operation,
                reason: reason.map(|r| sent.scrub(&r)),
                endpoint,
            },
            Self::Service {
                operation,
                code,
                message,
            } => Self::Service {
                operation,
                code: sent.scrub(&code),
                message: sent.scrub(&message),
            },
            Self::Other { operation, reason } => Self::Other {
                operation,
                reason: sent.scrub(&reason),
            },
            other @ (Self::InvalidEndpoint { .. }
            | Self::Config(_)
            | Self::TableNotFound { .. }
            | Self::NoStream { .. }
            | Self::Timeout { .. }
            | Self::Unreadable { .. }) => other,
        }
    }

    /// DynamoDB asked us to slow down.
    pub fn is_throttling(&self) -> bool {
        matches!(self, Self::Service { code, .. } if THROTTLING_CODES.contains(&code.as_str()))
    }

    /// Transient server trouble, worth a retry.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Service { code, .. } if TRANSIENT_CODES.contains(&code.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_short_and_name_the_table_last() {
        let e = DynamoError::TableNotFound {
            table: "Orders".into(),
        };
        assert!(e.to_string().ends_with(": Orders"));
        let t = DynamoError::Timeout {
            operation: "Scan",
            after: Duration::from_millis(1500),
            endpoint: Some("http://127.0.0.1:1".into()),
        };
        assert_eq!(
            t.to_string(),
            "Scan: no answer from the server (timed out after 1.5 s per attempt): http://127.0.0.1:1"
        );
    }

    #[test]
    fn sent_credentials_are_scrubbed_from_messages() {
        let sent = SentCredentials::default();
        sent.note("AKIAIOSFODNN7EXAMPLE");
        sent.note("FwoGZXIvYXdzEJr//////////wEaDLongToken==");
        sent.note("test");
        let e = DynamoError::Service {
            operation: "ListTables",
            code: "UnrecognizedClientException".into(),
            message: "Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/dynamodb/aws4_request | \
                      x-amz-security-token: FwoGZXIvYXdzEJr//////////wEaDLongToken== | a test"
                .into(),
        };
        assert_eq!(
            e.scrubbed(&sent).to_string(),
            "ListTables: UnrecognizedClientException: Credential=[redacted]/20260101/us-east-1/dynamodb/\
             aws4_request | x-amz-security-token: [redacted] | a test"
        );
    }

    #[test]
    fn throttling_codes_are_recognised() {
        for code in THROTTLING_CODES {
            let e = DynamoError::Service {
                operation: "Scan",
                code: code.into(),
                message: "slow down".into(),
            };
            assert!(e.is_throttling(), "{code}");
            assert!(!e.is_transient());
        }
        let e = DynamoError::Service {
            operation: "Scan",
            code: "ValidationException".into(),
            message: "bad".into(),
        };
        assert!(!e.is_throttling());
    }
}
