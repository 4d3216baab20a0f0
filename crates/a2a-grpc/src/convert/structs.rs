//! The well-known types: `google.protobuf.Struct` and `Value` to and from `serde_json`, and
//! `google.protobuf.Timestamp` to and from [`a2a_types::Timestamp`].
//!
//! `Struct` and `Value` convert totally both ways, with two losses that come from protobuf:
//! every number is a double (an integer above 2^53 loses precision; NaN and the infinities,
//! which JSON cannot hold, never come from JSON, and read back as `null`), and a whole double
//! within ±2^53 reads back as a JSON integer, as the C++ and Go ProtoJSON encoders print it
//! (`1`, not `1.0`).

use a2a_types::{Metadata, Timestamp};
use chrono::{DateTime, SecondsFormat, Utc};
use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value as ProtoValue};
use serde_json::{Number, Value};

use super::ConvertError;

/// The largest magnitude below which every whole double is an exact integer.
const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53

/// A JSON object as a `google.protobuf.Struct`.
#[must_use]
pub fn metadata_to_struct(metadata: Metadata) -> Struct {
    Struct {
        fields: metadata
            .into_iter()
            .map(|(key, value)| (key, json_to_value(value)))
            .collect(),
    }
}

/// A `google.protobuf.Struct` as a JSON object.
#[must_use]
pub fn struct_to_metadata(object: Struct) -> Metadata {
    object
        .fields
        .into_iter()
        .map(|(key, value)| (key, value_to_json(value)))
        .collect()
}

/// Any JSON value as a `google.protobuf.Value`; numbers become doubles.
#[must_use]
pub fn json_to_value(value: Value) -> ProtoValue {
    let kind = match value {
        Value::Null => Kind::NullValue(prost_types::NullValue::NullValue.into()),
        Value::Bool(flag) => Kind::BoolValue(flag),
        Value::Number(number) => number.as_f64().map_or(
            Kind::NullValue(prost_types::NullValue::NullValue.into()),
            Kind::NumberValue,
        ),
        Value::String(text) => Kind::StringValue(text),
        Value::Array(items) => Kind::ListValue(ListValue {
            values: items.into_iter().map(json_to_value).collect(),
        }),
        Value::Object(object) => Kind::StructValue(metadata_to_struct(object)),
    };
    ProtoValue { kind: Some(kind) }
}

/// A `google.protobuf.Value` as JSON. A value with no kind set reads as `null`, like NaN and
/// the infinities; a whole number within ±2^53 reads as a JSON integer.
#[must_use]
pub fn value_to_json(value: ProtoValue) -> Value {
    match value.kind {
        None | Some(Kind::NullValue(_)) => Value::Null,
        Some(Kind::BoolValue(flag)) => Value::Bool(flag),
        Some(Kind::NumberValue(number)) => number_to_json(number),
        Some(Kind::StringValue(text)) => Value::String(text),
        Some(Kind::ListValue(list)) => {
            Value::Array(list.values.into_iter().map(value_to_json).collect())
        }
        Some(Kind::StructValue(object)) => Value::Object(struct_to_metadata(object)),
    }
}

fn number_to_json(number: f64) -> Value {
    if number.fract() == 0.0 && number.abs() <= EXACT_INTEGER_LIMIT {
        // Exact: whole and within the range where doubles hold every integer.
        #[allow(clippy::cast_possible_truncation)]
        let integer = number as i64;
        return Value::Number(Number::from(integer));
    }
    Number::from_f64(number).map_or(Value::Null, Value::Number)
}

/// An optional metadata object as an optional `Struct`, keeping presence.
pub(crate) fn metadata_out(metadata: Option<Metadata>) -> Option<Struct> {
    metadata.map(metadata_to_struct)
}

/// An optional `Struct` as optional metadata, keeping presence.
pub(crate) fn metadata_in(object: Option<Struct>) -> Option<Metadata> {
    object.map(struct_to_metadata)
}

/// The earliest and latest seconds RFC 3339 can write (0001-01-01 and 9999-12-31), which
/// are also the bounds `google.protobuf.Timestamp` documents.
const MIN_SECONDS: i64 = -62_135_596_800;
const MAX_SECONDS: i64 = 253_402_300_799;
const NANOS_PER_SECOND: u32 = 1_000_000_000;

/// A timestamp as a `google.protobuf.Timestamp`. A leap second (which `a2a-types` keeps
/// as a nanosecond count of one second or more) becomes the first instant of the next second.
#[must_use]
pub fn timestamp_to_proto(timestamp: Timestamp) -> prost_types::Timestamp {
    let instant = timestamp.as_datetime();
    let mut seconds = instant.timestamp();
    let mut nanos = instant.timestamp_subsec_nanos();
    if nanos >= NANOS_PER_SECOND {
        seconds += 1;
        nanos -= NANOS_PER_SECOND;
    }
    prost_types::Timestamp {
        seconds,
        nanos: i32::try_from(nanos).unwrap_or_default(),
    }
}

/// A `google.protobuf.Timestamp` as a timestamp written, like ProtoJSON, with the shortest
/// exact fraction of 0, 3, 6 or 9 digits.
///
/// # Errors
/// When the seconds fall outside years 1 to 9999 or the nanoseconds outside `0..10^9`
/// (the error's path is `seconds` or `nanos`).
pub fn timestamp_from_proto(timestamp: prost_types::Timestamp) -> Result<Timestamp, ConvertError> {
    let prost_types::Timestamp { seconds, nanos } = timestamp;
    let out_of_range =
        || ConvertError::new("seconds", format!("{seconds} is outside years 1 to 9999"));
    if !(MIN_SECONDS..=MAX_SECONDS).contains(&seconds) {
        return Err(out_of_range());
    }
    let Some(nanos) = u32::try_from(nanos).ok().filter(|n| *n < NANOS_PER_SECOND) else {
        return Err(ConvertError::new(
            "nanos",
            format!("{nanos} is outside 0 to 999999999"),
        ));
    };
    let text = rfc3339(seconds, nanos).ok_or_else(out_of_range)?;
    Timestamp::parse(&text).map_err(|error| ConvertError::new("", error.to_string()))
}

/// `seconds` since the epoch and `nanos` as RFC 3339 in UTC, with the shortest exact
/// fraction of 0, 3, 6 or 9 digits; `None` outside what `chrono` can represent.
fn rfc3339(seconds: i64, nanos: u32) -> Option<String> {
    DateTime::<Utc>::from_timestamp(seconds, nanos)
        .map(|instant| instant.to_rfc3339_opts(SecondsFormat::AutoSi, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_and_nanos_print_as_protojson_does() {
        let cases = [
            (0, 0, "1970-01-01T00:00:00Z"),
            (1_748_779_200, 100_000_000, "2025-06-01T12:00:00.100Z"),
            (1_748_779_200, 123_456_000, "2025-06-01T12:00:00.123456Z"),
            (1_748_779_200, 1, "2025-06-01T12:00:00.000000001Z"),
            (951_782_400, 0, "2000-02-29T00:00:00Z"),
            (MIN_SECONDS, 0, "0001-01-01T00:00:00Z"),
            (MAX_SECONDS, 999_999_999, "9999-12-31T23:59:59.999999999Z"),
            (-1, 0, "1969-12-31T23:59:59Z"),
        ];
        for (seconds, nanos, text) in cases {
            assert_eq!(rfc3339(seconds, nanos).as_deref(), Some(text));
        }
    }
}
