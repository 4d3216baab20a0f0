//! The one duration parser of the `a2a` command: flags, `A2A_*` variables and TOML files
//! all write a duration as a whole number with a unit (`250ms`, `300s`, `5m`, `1h`), or as a
//! bare number of milliseconds, the unit the options' names and help give (`asyncTimeout` =
//! 300000 in the spec's terms). [`Millis`] is that value; TOML files may also give it as a
//! number.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Deserializer};

/// Why a text is not a duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DurationError<'a> {
    /// It does not start with a whole number.
    NotANumber,
    /// The unit after the number is not `ms`, `s`, `m` or `h`.
    UnknownUnit(&'a str),
    /// It is more milliseconds than 64 bits hold.
    TooLong,
}

/// The milliseconds `text` stands for: a whole number, bare (milliseconds) or followed by
/// `ms`, `s`, `m` or `h`. Surrounding white space is ignored.
fn parse_millis(text: &str) -> Result<u64, DurationError<'_>> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().map_err(|_| DurationError::NotANumber)?;
    let millis_per_unit = match unit.trim() {
        "" | "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        other => return Err(DurationError::UnknownUnit(other)),
    };
    number
        .checked_mul(millis_per_unit)
        .ok_or(DurationError::TooLong)
}

/// A duration given in milliseconds, or with a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Millis(pub(crate) Duration);

impl FromStr for Millis {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        match parse_millis(text) {
            Ok(millis) => Ok(Self(Duration::from_millis(millis))),
            Err(DurationError::NotANumber) => Err(format!(
                "`{text}` is not a duration (e.g. 250ms, 30s, 5m, 1h, or 30000 for milliseconds)"
            )),
            Err(DurationError::UnknownUnit(unit)) => {
                Err(format!("unknown unit `{unit}` in `{text}` (ms, s, m, h)"))
            }
            Err(DurationError::TooLong) => Err(format!("`{text}` is too long")),
        }
    }
}

impl Millis {
    /// The duration in its largest whole unit, as a person writes it: `1h`, `5m`, `30s`,
    /// `250ms`, `0ms`; [`Millis::from_str`] reads it back.
    pub(crate) fn human(self) -> String {
        let millis = self.0.as_millis();
        match millis {
            0 => "0ms".to_owned(),
            _ if millis.is_multiple_of(3_600_000) => format!("{}h", millis / 3_600_000),
            _ if millis.is_multiple_of(60_000) => format!("{}m", millis / 60_000),
            _ if millis.is_multiple_of(1_000) => format!("{}s", millis / 1_000),
            _ => format!("{millis}ms"),
        }
    }
}

/// Written as [`Millis::human`] text, which every configuration source reads.
impl serde::Serialize for Millis {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.human())
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
            ("300s", Some(300_000)),
            ("5m", Some(300_000)),
            ("1h", Some(3_600_000)),
            (" 2 s ", Some(2_000)),
            ("0", Some(0)),
            ("", None),
            ("1.5s", None),
            ("10d", None),
            ("-1", None),
            ("s", None),
            ("99999999999999999999h", None),
        ];
        for (text, millis) in cases {
            let parsed = text.parse::<Millis>().ok().map(|m| m.0.as_millis());
            assert_eq!(parsed, millis.map(u128::from), "{text:?}");
        }
    }

    #[test]
    fn toml_gives_a_duration_as_a_number_or_a_text() {
        #[derive(Deserialize)]
        struct File {
            number: Millis,
            text: Millis,
        }
        let file: File = toml::from_str("number = 1500\ntext = \"5m\"").unwrap();
        assert_eq!(file.number.0, Duration::from_millis(1500));
        assert_eq!(file.text.0, Duration::from_secs(300));
        assert!(toml::from_str::<File>("number = 1\ntext = \"soon\"").is_err());
    }
}
