//! Reading an answer's `Retry-After` header (RFC 9110 §10.2.3).

use std::time::{Duration, SystemTime};

/// How long an answer's `Retry-After` asks to wait, from now; `None` without one or when
/// it is neither delta-seconds nor an HTTP-date. A date in the past is no wait.
pub fn retry_after(headers: &http::HeaderMap) -> Option<Duration> {
    let value = headers.get(http::header::RETRY_AFTER)?.to_str().ok()?;
    parse_retry_after(value, SystemTime::now())
}

/// `value` read as a `Retry-After` header at `now`.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|byte| byte.is_ascii_digit()) {
        // More digits than a u64 holds is still "a very long time".
        return Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        let cases = [
            ("120", Some(Duration::from_secs(120))),
            (" 0 ", Some(Duration::ZERO)),
            (
                "99999999999999999999999",
                Some(Duration::from_secs(u64::MAX)),
            ),
            (
                "Wed, 21 Oct 2015 07:28:30 GMT",
                Some(Duration::from_secs(30)),
            ),
            ("Wed, 21 Oct 2015 07:27:00 GMT", Some(Duration::ZERO)),
            ("-5", None),
            ("1.5", None),
            ("soon", None),
            ("", None),
        ];
        for (value, expected) in cases {
            assert_eq!(parse_retry_after(value, now), expected, "{value:?}");
        }
    }
}
