//! SDK errors in shardlens's words ([`DynamoError::from_sdk`]), and the interceptor that notes the credentials
//! a request carried so that messages can be scrubbed of them. Desktop and CLI only, as the SDK is.

use std::time::Duration;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

use super::error::{DynamoError, SentCredentials};

/// Notes each request's credentials in a [`SentCredentials`] just before the request is sent.
#[derive(Debug)]
pub(crate) struct NoteSentCredentials(pub(crate) SentCredentials);

impl aws_sdk_dynamodb::config::Intercept for NoteSentCredentials {
    fn name(&self) -> &'static str {
        "NoteSentCredentials"
    }

    fn read_before_transmit(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let headers = context.request().headers();
        if let Some(key_id) = headers
            .get("authorization")
            .and_then(|auth| auth.split("Credential=").nth(1))
            .and_then(|credential| credential.split('/').next())
        {
            self.0.note(key_id);
        }
        if let Some(token) = headers.get("x-amz-security-token") {
            self.0.note(token);
        }
        Ok(())
    }
}

impl DynamoError {
    /// Converts an SDK error into a short message. `timeout` is the per-attempt timeout in force, so the
    /// message can say how long it waited.
    pub(crate) fn from_sdk<E>(
        operation: &'static str,
        err: &SdkError<E, HttpResponse>,
        timeout: Duration,
        endpoint: Option<&str>,
        table: Option<&str>,
    ) -> Self
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        let endpoint = endpoint.map(str::to_owned);
        let timed_out = match err {
            SdkError::TimeoutError(_) => true,
            SdkError::DispatchFailure(failure) => failure.is_timeout(),
            _ => false,
        };
        match err {
            _ if let Some(reason) = credentials_failure(err) => Self::NoCredentials {
                operation,
                reason,
                endpoint,
            },
            _ if timed_out => Self::Timeout {
                operation,
                after: timeout,
                endpoint,
            },
            // A connection refused or reset, or one that broke while the answer was being read (the
            // response arrived cut short): the connection, not the request, failed.
            SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => Self::Connect {
                operation,
                reason: innermost(err),
                endpoint,
            },
            SdkError::ServiceError(service) => {
                let e = service.err();
                let Some(code) = e.code().map(str::to_owned) else {
                    return Self::Unreadable {
                        operation,
                        status: service.raw().status().as_u16(),
                        endpoint,
                    };
                };
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
}

/// The most specific message in an error's source chain, which for SDK errors is the useful one
/// ("Connection refused (os error 111)" rather than "dispatch failure"). Never includes request bodies or
/// signatures: the SDK's error messages hold neither.
/// Whether the request failed getting credentials (a `CredentialsError` anywhere in its causes): `Some(None)`
/// when none were found, `Some(Some(reason))` when a provider failed, on one line.
fn credentials_failure(err: &(dyn std::error::Error + 'static)) -> Option<Option<String>> {
    use aws_credential_types::provider::error::CredentialsError;
    let mut next = Some(err);
    while let Some(e) = next {
        if let Some(c) = e.downcast_ref::<CredentialsError>() {
            if matches!(c, CredentialsError::CredentialsNotLoaded(_)) {
                return Some(None);
            }
            let reason = innermost(c);
            return Some(Some(
                reason.split_whitespace().collect::<Vec<_>>().join(" "),
            ));
        }
        next = e.source();
    }
    None
}

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
