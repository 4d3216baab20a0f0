//! The public agent card route (spec §2.12, §11.6): public, no version check and no extension
//! negotiation, cacheable (`Cache-Control: max-age`), with `ETag` and `Last-Modified` for
//! conditional requests.

use std::time::{SystemTime, UNIX_EPOCH};

use a2a_types::{A2aError, AgentCard};
use axum::extract::Request;
use axum::response::Response;
use http::header::{
    CACHE_CONTROL, ETAG, HeaderValue, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED,
};
use http::{HeaderMap, Method, StatusCode};
use sha2::{Digest, Sha256};

use super::media::{self, APPLICATION_JSON};
use super::response::{self, RestErrors};

/// The card, serialised once when the router is built.
#[derive(Debug)]
pub(super) struct CardRoute {
    /// `None` when the card could not be serialised (logged at build).
    body: Option<Vec<u8>>,
    /// A strong validator: the SHA-256 of the body.
    etag: String,
    /// When the router was built, as an HTTP date.
    last_modified: String,
    last_modified_seconds: u64,
    /// `max-age=…`, from the server's `card_max_age`.
    cache_control: HeaderValue,
}

/// The card answers reads; anything else is 405.
pub(super) fn is_read(method: &Method) -> bool {
    method == Method::GET || method == Method::HEAD
}

impl CardRoute {
    pub(super) fn new(card: &AgentCard, max_age: std::time::Duration) -> Self {
        let body = serde_json::to_vec(card)
            .inspect_err(
                |error| tracing::error!(error = %error, "the agent card cannot be serialised"),
            )
            .ok();
        let digest = Sha256::digest(body.as_deref().unwrap_or_default());
        let etag = format!("\"{}\"", hex(&digest));
        let seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs());
        Self {
            body,
            etag,
            last_modified: http_date(seconds),
            last_modified_seconds: seconds,
            // Digits only, so always a valid header value.
            cache_control: HeaderValue::from_str(&format!("max-age={}", max_age.as_secs()))
                .unwrap_or_else(|_| HeaderValue::from_static("max-age=3600")),
        }
    }

    /// Serves a request for the card's path.
    pub(super) fn serve(&self, request: &Request) -> Response {
        let headers = request.headers();
        let errors = RestErrors {
            negotiated: media::negotiate(headers),
            profile: a2a_types::error::RestStatusProfile::Spec,
            instance: request.uri().path(),
        };
        if !is_read(request.method()) {
            let error = A2aError::method_not_found(request.method().as_str())
                .with_metadata("path", request.uri().path());
            let response =
                errors.response_with_status(&error, StatusCode::METHOD_NOT_ALLOWED.as_u16());
            return response::with_allow(response, &[Method::GET, Method::HEAD]);
        }
        let Some(body) = &self.body else {
            return errors.response(&A2aError::internal());
        };
        let response = if self.not_modified(headers) {
            response::empty(StatusCode::NOT_MODIFIED)
        } else {
            response::bytes(StatusCode::OK, APPLICATION_JSON, body.clone())
        };
        self.with_validators(response)
    }

    /// RFC 9110 §13.1: `If-None-Match` decides when present (weak comparison); otherwise
    /// `If-Modified-Since`.
    fn not_modified(&self, headers: &HeaderMap) -> bool {
        let tags: Vec<String> = headers
            .get_all(IF_NONE_MATCH)
            .iter()
            .flat_map(|value| {
                String::from_utf8_lossy(value.as_bytes())
                    .split(',')
                    .map(|tag| tag.trim().trim_start_matches("W/").to_owned())
                    .collect::<Vec<_>>()
            })
            .filter(|tag| !tag.is_empty())
            .collect();
        if !tags.is_empty() {
            return tags.iter().any(|tag| tag == "*" || *tag == self.etag);
        }
        headers
            .get(IF_MODIFIED_SINCE)
            .and_then(|value| value.to_str().ok())
            .and_then(parse_http_date)
            .is_some_and(|since| since >= self.last_modified_seconds)
    }

    fn with_validators(&self, mut response: Response) -> Response {
        let headers = response.headers_mut();
        headers.insert(CACHE_CONTROL, self.cache_control.clone());
        for (name, value) in [(ETAG, &self.etag), (LAST_MODIFIED, &self.last_modified)] {
            if let Ok(value) = HeaderValue::from_str(value) {
                headers.insert(name, value);
            }
        }
        response
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Unix seconds as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7).
fn http_date(seconds: u64) -> String {
    let days = seconds / 86_400;
    let time = seconds % 86_400;
    let (year, month, day) = civil_from_days(days);
    // 1970-01-01 was a Thursday, the first entry of WEEKDAYS.
    let weekday = WEEKDAYS
        .get((days % 7) as usize)
        .copied()
        .unwrap_or_default();
    let month_name = MONTHS
        .get(month.saturating_sub(1) as usize)
        .copied()
        .unwrap_or_default();
    format!(
        "{weekday}, {day:02} {month_name} {year} {:02}:{:02}:{:02} GMT",
        time / 3600,
        time % 3600 / 60,
        time % 60
    )
}

/// Reads an IMF-fixdate back into Unix seconds; other date formats give `None` (a client
/// echoing our `Last-Modified` always sends this one).
fn parse_http_date(text: &str) -> Option<u64> {
    let mut parts = text.trim().split_ascii_whitespace();
    let (_weekday, day, month, year, time, zone) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if zone != "GMT" || parts.next().is_some() {
        return None;
    }
    let day: u64 = day.parse().ok()?;
    let month = MONTHS.iter().position(|name| *name == month)? as u64 + 1;
    let year: u64 = year.parse().ok()?;
    let mut clock = time.split(':').map(|part| part.parse::<u64>().ok());
    let (hours, minutes, seconds) = (clock.next()??, clock.next()??, clock.next()??);
    if year < 1970 || !(1..=31).contains(&day) || hours > 23 || minutes > 59 || seconds > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hours * 3600 + minutes * 60 + seconds)
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant's algorithm,
/// restricted to dates after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// The inverse of [`civil_from_days`], for years from 1970.
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year / 400;
    let year_of_era = year % 400;
    let shifted_month = if month > 2 { month - 3 } else { month + 9 };
    let day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    (era * 146_097 + day_of_era).saturating_sub(719_468)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates_are_written_and_read_back() {
        let cases = [
            (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
            (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
            (1_767_225_599, "Wed, 31 Dec 2025 23:59:59 GMT"),
        ];
        for (seconds, text) in cases {
            assert_eq!(http_date(seconds), text);
            assert_eq!(parse_http_date(text), Some(seconds), "{text}");
        }
        for text in [
            "",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Foo 1994 08:49:37 GMT",
        ] {
            assert_eq!(parse_http_date(text), None, "{text}");
        }
    }
}
