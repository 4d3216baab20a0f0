//! [`Timestamp`]: a `google.protobuf.Timestamp` on the wire, an RFC 3339 string in UTC.

use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::{Serialize, Serializer};

/// A point in time, written as RFC 3339 in UTC with a `Z` suffix.
///
/// Timestamps we create ([`Timestamp::now`], [`From<DateTime<Utc>>`]) are written with
/// millisecond precision. A parsed timestamp remembers how many fractional digits it was
/// written with (rounded up to 0, 3, 6 or 9, the forms ProtoJSON emits) so that relaying a
/// document does not change it; offsets other than `Z` are normalised to UTC.
/// Equality and ordering compare the instant only.
#[derive(Clone, Copy)]
pub struct Timestamp {
    instant: DateTime<Utc>,
    precision: SecondsFormat,
}

impl Timestamp {
    /// The current time, with millisecond precision.
    #[must_use]
    pub fn now() -> Self {
        Self::from(Utc::now())
    }

    /// The instant this timestamp names.
    #[must_use]
    pub fn as_datetime(&self) -> DateTime<Utc> {
        self.instant
    }

    /// Parses an RFC 3339 timestamp (any fraction length, any offset).
    ///
    /// # Errors
    /// When `text` is not RFC 3339.
    pub fn parse(text: &str) -> Result<Self, TimestampError> {
        let parsed = DateTime::parse_from_rfc3339(text).map_err(|_| TimestampError {
            text: text.chars().take(64).collect(),
        })?;
        Ok(Self {
            instant: parsed.with_timezone(&Utc),
            precision: written_precision(text),
        })
    }

    /// Milliseconds since the Unix epoch.
    #[must_use]
    pub fn unix_millis(&self) -> i64 {
        self.instant.timestamp_millis()
    }
}

/// A string that is not an RFC 3339 timestamp.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not an RFC 3339 timestamp")]
pub struct TimestampError {
    text: String,
}

/// How many fractional digits the text carries, as one of the ProtoJSON forms.
fn written_precision(text: &str) -> SecondsFormat {
    let digits = text.split_once('.').map_or(0, |(_, rest)| {
        rest.chars().take_while(char::is_ascii_digit).count()
    });
    match digits {
        0 => SecondsFormat::Secs,
        1..=3 => SecondsFormat::Millis,
        4..=6 => SecondsFormat::Micros,
        _ => SecondsFormat::Nanos,
    }
}

impl From<DateTime<Utc>> for Timestamp {
    fn from(instant: DateTime<Utc>) -> Self {
        Self {
            instant,
            precision: SecondsFormat::Millis,
        }
    }
}

impl std::str::FromStr for Timestamp {
    type Err = TimestampError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.instant.to_rfc3339_opts(self.precision, true))
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({self})")
    }
}

impl PartialEq for Timestamp {
    fn eq(&self, other: &Self) -> bool {
        self.instant == other.instant
    }
}

impl Eq for Timestamp {}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timestamp {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.instant.cmp(&other.instant)
    }
}

impl std::hash::Hash for Timestamp {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.instant.hash(state);
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Rfc3339;
        impl Visitor<'_> for Rfc3339 {
            type Value = Timestamp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an RFC 3339 timestamp string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Timestamp, E> {
                Timestamp::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Rfc3339)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_timestamps_use_milliseconds_and_z() {
        let ts = Timestamp::from(DateTime::from_timestamp(1_700_000_000, 5_000_000).unwrap());
        assert_eq!(ts.to_string(), "2023-11-14T22:13:20.005Z");
    }

    #[test]
    fn parsed_timestamps_keep_their_written_precision() {
        for text in [
            "2025-10-28T10:30:00Z",
            "2025-10-28T10:30:00.120Z",
            "2025-10-28T10:30:00.123456Z",
            "2025-10-28T10:30:00.123456789Z",
        ] {
            assert_eq!(Timestamp::parse(text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn offsets_are_normalised_to_utc() {
        let ts = Timestamp::parse("2025-10-28T12:30:00.000+02:00").unwrap();
        assert_eq!(ts.to_string(), "2025-10-28T10:30:00.000Z");
    }

    #[test]
    fn equality_ignores_precision() {
        let a = Timestamp::parse("2025-10-28T10:30:00Z").unwrap();
        let b = Timestamp::parse("2025-10-28T10:30:00.000Z").unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn garbage_is_refused() {
        assert!(Timestamp::parse("yesterday").is_err());
        assert!(serde_json::from_str::<Timestamp>("12").is_err());
    }
}
