//! [`Millis`]: a duration option. The spec's options are in milliseconds (`asyncTimeout` =
//! 300000), so a bare number means milliseconds; a unit suffix (`ms`, `s`, `m`, `h`) is
//! accepted for humans.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Deserializer};

use crate::duration::{DurationError, parse_millis};

/// A duration given in milliseconds, or with a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Millis(pub(crate) Duration);

impl FromStr for Millis {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        match parse_millis(text) {
            Ok(millis) => Ok(Self(Duration::from_millis(millis))),
            Err(DurationError::NotANumber) => {
                Err(format!("`{text}` is not a duration (e.g. 30000, 30s, 5m)"))
            }
            Err(DurationError::UnknownUnit(unit)) => {
                Err(format!("unknown unit `{unit}` in `{text}` (ms, s, m, h)"))
            }
            Err(DurationError::TooLong) => Err(format!("`{text}` is too long")),
        }
    }
}

impl fmt::Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.0.as_millis())
    }
}

impl<'de> Deserialize<'de> for Millis {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // TOML users write `async_timeout = 300000` or `async_timeout = "5m"`.
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Number(u64),
            Text(String),
        }
        match Given::deserialize(deserializer)? {
            Given::Number(millis) => Ok(Self(Duration::from_millis(millis))),
            Given::Text(text) => text.parse().map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_milliseconds_or_with_a_unit() {
        let cases = [
            ("300000", Some(300_000_u64)),
            ("250ms", Some(250)),
            ("30s", Some(30_000)),
            ("5m", Some(300_000)),
            ("1h", Some(3_600_000)),
            ("0", Some(0)),
            ("", None),
            ("1.5s", None),
            ("10d", None),
            ("-1", None),
        ];
        for (text, millis) in cases {
            let parsed = text.parse::<Millis>().ok().map(|m| m.0.as_millis());
            assert_eq!(parsed, millis.map(u128::from), "{text:?}");
        }
    }
}
