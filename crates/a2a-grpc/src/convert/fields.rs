//! Field helpers shared by the conversions: proto3 defaults read as "absent", and errors
//! inside repeated and map fields named by index or key.

use super::ConvertError;

/// A required string: proto3 cannot tell `""` from absent, and ProtoJSON refuses absent.
pub(crate) fn required(value: String, field: &str) -> Result<String, ConvertError> {
    if value.is_empty() {
        Err(ConvertError::missing(field))
    } else {
        Ok(value)
    }
}

/// An implicit-presence string read into `Option`: `""` is unset.
pub(crate) fn non_empty(value: String) -> Option<String> {
    (!value.is_empty()).then_some(value)
}

/// A required message field.
pub(crate) fn present<T>(value: Option<T>, field: &str) -> Result<T, ConvertError> {
    value.ok_or_else(|| ConvertError::missing(field))
}

/// A message field or oneof member, converted; errors inside it are prefixed with `field`.
pub(crate) fn convert<P, A>(value: P, field: &str) -> Result<A, ConvertError>
where
    A: TryFrom<P, Error = ConvertError>,
{
    A::try_from(value).map_err(|error| error.within(field))
}

/// A required message field, converted; errors inside it are prefixed with `field`.
pub(crate) fn convert_present<P, A>(value: Option<P>, field: &str) -> Result<A, ConvertError>
where
    A: TryFrom<P, Error = ConvertError>,
{
    convert(present(value, field)?, field)
}

/// An optional message field, converted; errors inside it are prefixed with `field`.
pub(crate) fn convert_optional<P, A>(
    value: Option<P>,
    field: &str,
) -> Result<Option<A>, ConvertError>
where
    A: TryFrom<P, Error = ConvertError>,
{
    value.map(|value| convert(value, field)).transpose()
}

/// A repeated field, converted element by element; an error names the element's index.
pub(crate) fn convert_each<P, A>(values: Vec<P>, field: &str) -> Result<Vec<A>, ConvertError>
where
    A: TryFrom<P, Error = ConvertError>,
{
    values
        .into_iter()
        .enumerate()
        .map(|(index, value)| {
            A::try_from(value).map_err(|error| error.within(&format!("{field}[{index}]")))
        })
        .collect()
}

/// A repeated field that must hold at least one element (ProtoJSON refuses it absent, and
/// proto3 writes nothing for an empty list).
pub(crate) fn convert_non_empty<P, A>(values: Vec<P>, field: &str) -> Result<Vec<A>, ConvertError>
where
    A: TryFrom<P, Error = ConvertError>,
{
    if values.is_empty() {
        return Err(ConvertError::missing(field));
    }
    convert_each(values, field)
}

/// Converts every element with `From`.
pub(crate) fn into_each<A, P: From<A>>(values: Vec<A>) -> Vec<P> {
    values.into_iter().map(P::from).collect()
}

/// A proto `map` converted entry by entry, in key order (protobuf maps have none, and a
/// fixed order keeps the result reproducible); an error names the key.
pub(crate) fn convert_map<P, A, C>(
    entries: impl IntoIterator<Item = (String, P)>,
    field: &str,
) -> Result<C, ConvertError>
where
    A: TryFrom<P, Error = ConvertError>,
    C: FromIterator<(String, A)>,
{
    let mut entries: Vec<(String, P)> = entries.into_iter().collect();
    entries.sort_by(|(left, _), (right, _)| left.cmp(right));
    entries
        .into_iter()
        .map(|(key, value)| match A::try_from(value) {
            Ok(value) => Ok((key, value)),
            Err(error) => Err(error.within(&format!("{field}[{key:?}]"))),
        })
        .collect()
}
