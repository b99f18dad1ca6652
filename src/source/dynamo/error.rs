//! Short, secret-free messages for everything that can go wrong talking to DynamoDB.

use std::time::Duration;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

/// A DynamoDB failure, as a short message. URLs and table names go last.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DynamoError {
    /// The endpoint is not an `http://` or `https://` URL; no request was sent.
    #[error("the endpoint is not a URL ({reason}; expected e.g. http://localhost:8000): {url}")]
    InvalidEndpoint { url: String, reason: String },
    /// The configuration is incomplete (no region, bad option).
    #[error("{0}")]
    Config(String),
    /// The table does not exist (or is not visible to these credentials in this region).
    #[error("table not found (check the name, the region and the account): {table}")]
    TableNotFound { table: String },
    /// No answer within the timeout.
    #[error("{operation}: no answer from the server (timed out after {:.1} s per attempt){}", .after.as_secs_f64(), at(.endpoint))]
    Timeout {
        operation: &'static str,
        after: Duration,
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
    /// Anything else (an unreadable response, a request that could not be built).
    #[error("{operation}: {reason}")]
    Other {
        operation: &'static str,
        reason: String,
    },
}

fn at(endpoint: &Option<String>) -> String {
    endpoint
        .as_deref()
        .map_or_else(String::new, |e| format!(": {e}"))
}

/// Error codes DynamoDB uses for throttling: back off and try again.
pub(crate) const THROTTLING_CODES: [&str; 3] = [
    "ProvisionedThroughputExceededException",
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
    /// Converts an SDK error into a short message. `timeout` is the per-attempt timeout in force, so the
    /// message can say how long it waited.
    pub(crate) fn from_sdk<E, R>(
        operation: &'static str,
        err: &SdkError<E, R>,
        timeout: Duration,
        endpoint: Option<&str>,
        table: Option<&str>,
    ) -> Self
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
        R: std::fmt::Debug + 'static,
    {
        let endpoint = endpoint.map(str::to_owned);
        let timed_out = match err {
            SdkError::TimeoutError(_) => true,
            SdkError::DispatchFailure(failure) => failure.is_timeout(),
            _ => false,
        };
        match err {
            _ if timed_out => Self::Timeout {
                operation,
                after: timeout,
                endpoint,
            },
            SdkError::DispatchFailure(_) => Self::Connect {
                operation,
                reason: innermost(err),
                endpoint,
            },
            SdkError::ServiceError(service) => {
                let e = service.err();
                let code = e.code().unwrap_or("UnknownError").to_owned();
                if code == "ResourceNotFoundException"
                    && let Some(table) = table
                {
                    return Self::TableNotFound {
                        table: table.to_owned(),
                    };
                }
                let message = e
                    .message()
                    .map_or_else(|| "no message".to_owned(), str::to_owned);
                Self::Service {
                    operation,
                    code,
                    message,
                }
            }
            _ => Self::Other {
                operation,
                reason: innermost(err),
            },
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

/// The most specific message in an error's source chain, which for SDK errors is the useful one
/// ("Connection refused (os error 111)" rather than "dispatch failure"). Never includes request bodies or
/// signatures: the SDK's error messages hold neither.
fn innermost(err: &dyn std::error::Error) -> String {
    let mut messages = vec![err.to_string()];
    let mut source = err.source();
    while let Some(s) = source {
        messages.push(s.to_string());
        source = s.source();
    }
    // Drop generic wrappers; keep the last two distinct, specific messages.
    let specific: Vec<&String> = messages
        .iter()
        .filter(|m| {
            !matches!(
                m.as_str(),
                "dispatch failure"
                    | "io error"
                    | "other"
                    | "client error (Connect)"
                    | "service error"
            )
        })
        .collect();
    let mut tail: Vec<&str> = specific.iter().rev().take(2).map(|s| s.as_str()).collect();
    tail.reverse();
    tail.dedup();
    if tail.is_empty() {
        messages.last().cloned().unwrap_or_default()
    } else {
        tail.join(": ")
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
