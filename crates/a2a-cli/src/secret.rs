//! [`Secret`]: a flag value that must not be shown.

use std::fmt;
use std::str::FromStr;

/// A flag value that must not be shown: `Debug` prints `<redacted>`, and there is no
/// `Display`.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(String);

impl Secret {
    /// The value, for the one place that sends it.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl FromStr for Secret {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(Self(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_do_not_show_in_debug_output() {
        assert_eq!(format!("{:?}", Secret("s3cr3t".into())), "<redacted>");
    }
}
