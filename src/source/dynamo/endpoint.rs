//! Where the requests go and, for a server on this machine, what signs them: an endpoint URL checked before any
//! request, and the endpoints the environment names. (The credentials for a server on this machine are the client's, in
//! `client.rs`.)

// The environment's endpoints and loopback check serve the SDK's client, which a page leaves out.
#![cfg_attr(
    target_arch = "wasm32",
    allow(dead_code, reason = "used by the SDK's client only")
)]

use super::error::DynamoError;

/// Checks that `url` is an `http://` or `https://` URL with a host (and a numeric port, if any), before any
/// request is made.
pub fn validate_endpoint(url: &str) -> Result<(), DynamoError> {
    let bad = |reason: &str| DynamoError::InvalidEndpoint {
        url: url.to_owned(),
        reason: reason.to_owned(),
    };
    let Some(authority) = authority(url) else {
        return Err(bad("it must start with http:// or https://"));
    };
    if authority.is_empty() {
        return Err(bad("no host"));
    }
    if authority.contains('@') {
        return Err(bad("user names or passwords do not belong in the URL"));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad("it contains spaces"));
    }
    let Some((host, port)) = host_and_port(authority) else {
        return Err(bad("unclosed [ in the host"));
    };
    if host.is_empty() {
        return Err(bad("no host"));
    }
    if !host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'))
    {
        return Err(bad("the host has characters a host name cannot have"));
    }
    if let Some(p) = port
        && !matches!(p.parse::<u16>(), Ok(n) if n > 0)
    {
        return Err(bad("the port must be a number from 1 to 65535"));
    }
    Ok(())
}

/// Whether `url` (checked by [`validate_endpoint`]) names this machine (`localhost`, `127.0.0.1`, `[::1]`): a
/// local server such as DynamoDB Local or dynalite, which checks no signature.
pub(super) fn is_loopback(url: &str) -> bool {
    let Some((host, _)) = authority(url).and_then(host_and_port) else {
        return false;
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The part of an `http://` or `https://` URL between the scheme and the path, query or fragment.
fn authority(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    Some(rest.split(['/', '?', '#']).next().unwrap_or_default())
}

/// An authority's host (an IPv6 address without its brackets) and port; `None` for an unclosed `[`.
fn host_and_port(authority: &str) -> Option<(&str, Option<&str>)> {
    match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']').map(|(h, p)| (h, p.strip_prefix(':'))),
        None => Some(match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }),
    }
}

/// A local DynamoDB named by `AWS_ENDPOINT_URL_DYNAMODB` serves its streams too: the stream's calls go there
/// unless `AWS_ENDPOINT_URL_DYNAMODB_STREAMS` (which the SDK reads itself) names another. Only without an
/// endpoint in the options, which holds for every service.
pub(super) fn streams_env_endpoint() -> Option<String> {
    let set = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    if set("AWS_ENDPOINT_URL_DYNAMODB_STREAMS").is_some() {
        return None;
    }
    set("AWS_ENDPOINT_URL_DYNAMODB")
}

/// The endpoint the environment names for DynamoDB (`AWS_ENDPOINT_URL_DYNAMODB`, else `AWS_ENDPOINT_URL`).
pub(super) fn env_endpoint() -> Option<String> {
    ["AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_checked_before_any_request() {
        for ok in [
            "http://localhost:8000",
            "http://127.0.0.1:8000/",
            "https://dynamodb.eu-west-1.amazonaws.com",
            "http://[::1]:8000",
        ] {
            assert!(validate_endpoint(ok).is_ok(), "{ok}");
        }
        for bad in [
            "localhost:8000",
            "127.0.0.1",
            "ftp://x",
            "http://",
            "http://:80",
            "http://host:port",
            "http://host:0",
            "http://a b",
            "not a url",
        ] {
            let e = validate_endpoint(bad).unwrap_err().to_string();
            assert!(e.contains("not a URL") && e.ends_with(bad), "{bad}: {e}");
        }
    }

    /// Only this machine's names and addresses are local servers, whatever the port or path.
    #[test]
    fn loopback_endpoints_are_this_machine() {
        for local in [
            "http://localhost:8000",
            "http://LOCALHOST",
            "http://127.0.0.1:8000/",
            "http://127.0.0.2:9",
            "https://[::1]:8000",
        ] {
            assert!(is_loopback(local), "{local}");
        }
        for remote in [
            "https://dynamodb.eu-west-1.amazonaws.com",
            "http://dynamodb-local:8000",
            "http://127.0.0.1.example.com",
            "http://192.0.2.1:8000",
            "http://[::2]:8000",
        ] {
            assert!(!is_loopback(remote), "{remote}");
        }
    }
}
