//! Durations as flags, variables and the config file write them: a whole number of
//! milliseconds, or a whole number with a unit. Each caller words its own errors.

/// Why a text is not a duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DurationError<'a> {
    /// It does not start with a whole number.
    NotANumber,
    /// The unit after the number is not `ms`, `s`, `m` or `h`.
    UnknownUnit(&'a str),
    /// It is more milliseconds than 64 bits hold.
    TooLong,
}

/// The milliseconds `text` stands for: a whole number, bare (milliseconds) or followed by
/// `ms`, `s`, `m` or `h`. Surrounding white space is ignored.
pub(crate) fn parse_millis(text: &str) -> Result<u64, DurationError<'_>> {
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
