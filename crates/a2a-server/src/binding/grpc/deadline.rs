//! The caller's deadline: the `grpc-timeout` metadata (gRPC over HTTP/2: up to eight digits
//! and a unit, `H`, `M`, `S`, `m`, `u` or `n`).

use std::time::Duration;

use http::HeaderMap;

/// The timeout the caller set, if any; a malformed value counts as none.
pub(super) fn timeout(metadata: &HeaderMap) -> Option<Duration> {
    let text = metadata.get("grpc-timeout")?.to_str().ok()?;
    let unit = text.chars().last()?;
    let digits = &text[..text.len() - unit.len_utf8()];
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: u64 = digits.parse().ok()?;
    Some(match unit {
        'H' => Duration::from_secs(value.saturating_mul(3600)),
        'M' => Duration::from_secs(value.saturating_mul(60)),
        'S' => Duration::from_secs(value),
        'm' => Duration::from_millis(value),
        'u' => Duration::from_micros(value),
        'n' => Duration::from_nanos(value),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn of(value: &'static str) -> Option<Duration> {
        let mut metadata = HeaderMap::new();
        metadata.insert("grpc-timeout", HeaderValue::from_static(value));
        timeout(&metadata)
    }

    #[test]
    fn every_unit_is_read_and_nonsense_is_none() {
        assert_eq!(of("2H"), Some(Duration::from_secs(7200)));
        assert_eq!(of("3M"), Some(Duration::from_secs(180)));
        assert_eq!(of("5S"), Some(Duration::from_secs(5)));
        assert_eq!(of("250m"), Some(Duration::from_millis(250)));
        assert_eq!(of("7u"), Some(Duration::from_micros(7)));
        assert_eq!(of("9n"), Some(Duration::from_nanos(9)));
        for bad in ["", "S", "12", "1x", "123456789S", "-1S", "1.5S"] {
            assert_eq!(of(bad), None, "{bad}");
        }
        assert_eq!(timeout(&HeaderMap::new()), None);
    }
}
