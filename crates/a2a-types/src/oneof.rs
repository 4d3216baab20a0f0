//! Serde glue for proto `oneof`s whose message holds nothing but the oneof
//! (`StreamResponse`, `SendMessageResponse`, `SecurityScheme`, `OAuthFlows`).
//!
//! On the wire the member name is the discriminator: `{"task": {…}}`. Exactly one member must
//! be present; zero or two are refused with an error that names the members. A member whose
//! value is `null` counts as absent (ProtoJSON), and unknown members are ignored.

/// The error for a oneof with no member set.
pub(crate) fn none_set<E: serde::de::Error>(type_name: &str, members: &[&str]) -> E {
    E::custom(format!(
        "{type_name}: exactly one of {} must be set, found none",
        members.join(", ")
    ))
}

/// The error for a oneof with two members set.
pub(crate) fn two_set<E: serde::de::Error>(type_name: &str, first: &str, second: &str) -> E {
    E::custom(format!(
        "{type_name}: only one member may be set, found both `{first}` and `{second}`"
    ))
}

/// Declares an enum for a pure oneof message, with its ProtoJSON serde.
///
/// Each variant names its camelCase member and, when it differs, its snake_case alias.
macro_rules! oneof_message {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident($ty:ty) = $json:literal $(| $snake:literal)?,
            )+
        }
    ) => {
        $(#[$meta])*
        ///
        /// Not `#[non_exhaustive]`: the members are fixed by the proto, and code that decides
        /// per member must be told when one is added.
        #[derive(Debug, Clone, PartialEq)]
        pub enum $name {
            $( $(#[$vmeta])* $variant($ty), )+
        }

        impl $name {
            /// The wire names of the oneof's members.
            pub const MEMBERS: &'static [&'static str] = &[$($json),+];

            /// The wire name of the member this value holds.
            #[must_use]
            pub const fn member_name(&self) -> &'static str {
                match self {
                    $( Self::$variant(_) => $json, )+
                }
            }
        }

        impl $name {
            /// Reads the value of member `key` when `key` names one of this oneof's members:
            /// `None` when it does not, `Some(None)` when the member is `null` (unset).
            #[allow(dead_code)] // used by wrappers that keep unknown members
            pub(crate) fn next_member<'de, A: serde::de::MapAccess<'de>>(
                key: &str,
                map: &mut A,
            ) -> Result<Option<Option<Self>>, A::Error> {
                Ok(match key {
                    $( $json $(| $snake)? => Some(map.next_value::<Option<$ty>>()?.map(Self::$variant)), )+
                    _ => None,
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap as _;
                let mut map = serializer.serialize_map(Some(1))?;
                match self {
                    $( Self::$variant(value) => map.serialize_entry($json, value)?, )+
                }
                map.end()
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct OneofVisitor;
                impl<'de> serde::de::Visitor<'de> for OneofVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        write!(f, "a {} object", stringify!($name))
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<$name, A::Error> {
                        let mut found: Option<$name> = None;
                        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                            let value = match $name::next_member(key.as_ref(), &mut map)? {
                                Some(value) => value,
                                None => {
                                    map.next_value::<serde::de::IgnoredAny>()?;
                                    None
                                }
                            };
                            if let Some(value) = value {
                                if let Some(previous) = &found {
                                    return Err($crate::oneof::two_set(
                                        stringify!($name),
                                        previous.member_name(),
                                        value.member_name(),
                                    ));
                                }
                                found = Some(value);
                            }
                        }
                        found.ok_or_else(|| {
                            $crate::oneof::none_set(stringify!($name), $name::MEMBERS)
                        })
                    }
                }
                deserializer.deserialize_map(OneofVisitor)
            }
        }
    };
}

pub(crate) use oneof_message;
