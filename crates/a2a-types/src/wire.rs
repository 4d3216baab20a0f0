//! ProtoJSON field helpers shared by the data model: null-as-unset, numeric strings for
//! `int32`, base64 for `bytes`, and the implicit-presence checks used to omit defaults.

use std::fmt;

use serde::Serializer;
use serde::de::{self, Deserialize, Deserializer, Visitor};

/// Reads an implicit-presence field: ProtoJSON parsers treat `null` as "unset", which for
/// these fields means the default value.
pub(crate) fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// `skip_serializing_if` for implicit-presence `bool` fields.
#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes a reference
pub(crate) fn is_false(value: &bool) -> bool {
    !*value
}

/// `skip_serializing_if` for implicit-presence `int32` fields.
#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes a reference
pub(crate) fn is_zero(value: &i32) -> bool {
    *value == 0
}

/// Parses a ProtoJSON `int32`: a JSON number, or a decimal string (ProtoJSON accepts both).
fn int32_from<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i32, D::Error> {
    struct Int32;
    impl Visitor<'_> for Int32 {
        type Value = i32;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a 32-bit integer (number or decimal string)")
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<i32, E> {
            i32::try_from(v).map_err(|_| E::custom(format!("{v} does not fit in int32")))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<i32, E> {
            i32::try_from(v).map_err(|_| E::custom(format!("{v} does not fit in int32")))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<i32, E> {
            // ProtoJSON accepts `1.0` and `1e2` for integers, but never a fraction.
            if v.fract() == 0.0 && v >= f64::from(i32::MIN) && v <= f64::from(i32::MAX) {
                #[allow(clippy::cast_possible_truncation)] // range checked above
                Ok(v as i32)
            } else {
                Err(E::custom(format!("{v} is not a 32-bit integer")))
            }
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<i32, E> {
            v.trim()
                .parse::<i32>()
                .map_err(|_| E::custom(format!("{v:?} is not a 32-bit integer")))
        }
    }
    deserializer.deserialize_any(Int32)
}

/// Serde adapter for implicit-presence `int32` fields (`#[serde(with = "wire::int32")]`).
pub(crate) mod int32 {
    use super::{Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(value: &i32, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i32(*value)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i32, D::Error> {
        Ok(super::optional_int32::deserialize(deserializer)?.unwrap_or_default())
    }
}

/// Serde adapter for `optional int32` fields (`#[serde(with = "wire::optional_int32")]`).
pub(crate) mod optional_int32 {
    use serde::de::{self, Visitor};
    use std::fmt;

    use super::{Deserializer, Serializer};

    #[allow(clippy::ref_option)] // serde passes a reference
    pub(crate) fn serialize<S: Serializer>(
        value: &Option<i32>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => serializer.serialize_i32(*value),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<i32>, D::Error> {
        struct MaybeInt32;
        impl<'de> Visitor<'de> for MaybeInt32 {
            type Value = Option<i32>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a 32-bit integer (number or decimal string) or null")
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                super::int32_from(d).map(Some)
            }
        }
        deserializer.deserialize_option(MaybeInt32)
    }
}

/// Serde adapter for `bytes` fields: standard base64 with padding on output; standard or
/// URL-safe alphabet, with or without padding, on input (ProtoJSON parser rules).
pub(crate) mod base64_bytes {
    use super::{Deserialize, Deserializer, Serializer, de};
    use base64::Engine as _;
    use base64::engine::DecodePaddingMode;
    use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};

    const LENIENT_STANDARD: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    const LENIENT_URL_SAFE: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );

    pub(crate) fn serialize<S: Serializer>(value: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&STANDARD.encode(value))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(deserializer)?;
        decode(&text).map_err(|()| de::Error::custom("not a valid base64 string"))
    }

    /// Decodes base64 in either alphabet, padded or not.
    pub(crate) fn decode(text: &str) -> Result<Vec<u8>, ()> {
        LENIENT_STANDARD
            .decode(text)
            .or_else(|_| LENIENT_URL_SAFE.decode(text))
            .map_err(|_| ())
    }
}

/// Reads an implicit-presence id or string into `Option`: absent, `null` and `""` are all
/// "unset" in ProtoJSON.
pub(crate) fn empty_as_none<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + AsRef<str>,
{
    Ok(Option::<T>::deserialize(deserializer)?.filter(|value| !value.as_ref().is_empty()))
}

/// `skip_serializing_if` for `Option` strings and ids: omitted when unset or empty.
#[allow(clippy::ref_option)] // serde passes a reference
pub(crate) fn is_unset<T: AsRef<str>>(value: &Option<T>) -> bool {
    value.as_ref().is_none_or(|value| value.as_ref().is_empty())
}
