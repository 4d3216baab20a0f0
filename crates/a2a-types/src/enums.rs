//! The protocol's two enums, [`TaskState`] and [`Role`].
//!
//! Both are written as their proto names (`TASK_STATE_WORKING`, `ROLE_USER`). On input they
//! also accept the numeric value (ProtoJSON), the short name (`WORKING`, `USER`) and the
//! v0.3 spelling (`working`, `input-required`, `user`), so that documents
//! from older peers and hand-written configuration read without ceremony.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::{Serialize, Serializer};

/// The state of a task (proto `TaskState`).
///
/// The numeric order is not the lifecycle order: `REJECTED` is 7, between
/// `INPUT_REQUIRED` and `AUTH_REQUIRED`.
///
/// Deliberately not `#[non_exhaustive]`: the states are fixed by the protocol version, and a
/// new one must be a compile error in every `match` that decides about the lifecycle (rule 4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TaskState {
    /// Unknown; never valid in task data, "no filter" in `ListTasks`.
    #[default]
    Unspecified,
    /// Accepted, not yet worked on.
    Submitted,
    /// Being processed.
    Working,
    /// Finished successfully (terminal).
    Completed,
    /// Finished with an error (terminal).
    Failed,
    /// Canceled before completion (terminal).
    Canceled,
    /// The agent needs more input from the user (interrupted).
    InputRequired,
    /// The agent decided not to perform the task (terminal).
    Rejected,
    /// Authorization is needed to proceed (interrupted).
    AuthRequired,
}

impl TaskState {
    /// Every state, in numeric order.
    pub const ALL: [TaskState; 9] = [
        Self::Unspecified,
        Self::Submitted,
        Self::Working,
        Self::Completed,
        Self::Failed,
        Self::Canceled,
        Self::InputRequired,
        Self::Rejected,
        Self::AuthRequired,
    ];

    /// The proto name, as written on the wire.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Unspecified => "TASK_STATE_UNSPECIFIED",
            Self::Submitted => "TASK_STATE_SUBMITTED",
            Self::Working => "TASK_STATE_WORKING",
            Self::Completed => "TASK_STATE_COMPLETED",
            Self::Failed => "TASK_STATE_FAILED",
            Self::Canceled => "TASK_STATE_CANCELED",
            Self::InputRequired => "TASK_STATE_INPUT_REQUIRED",
            Self::Rejected => "TASK_STATE_REJECTED",
            Self::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
        }
    }

    /// The proto enum number.
    #[must_use]
    pub const fn number(self) -> i32 {
        match self {
            Self::Unspecified => 0,
            Self::Submitted => 1,
            Self::Working => 2,
            Self::Completed => 3,
            Self::Failed => 4,
            Self::Canceled => 5,
            Self::InputRequired => 6,
            Self::Rejected => 7,
            Self::AuthRequired => 8,
        }
    }

    /// The v0.3 JSON-RPC spelling (`input-required`, `unknown` for unspecified).
    #[must_use]
    pub const fn v0_3_name(self) -> &'static str {
        match self {
            Self::Unspecified => "unknown",
            Self::Submitted => "submitted",
            Self::Working => "working",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Canceled => "canceled",
            Self::InputRequired => "input-required",
            Self::Rejected => "rejected",
            Self::AuthRequired => "auth-required",
        }
    }

    /// COMPLETED, FAILED, CANCELED and REJECTED: nothing follows.
    #[must_use]
    pub const fn is_terminal(self) -> bool {
        match self {
            Self::Completed | Self::Failed | Self::Canceled | Self::Rejected => true,
            Self::Unspecified
            | Self::Submitted
            | Self::Working
            | Self::InputRequired
            | Self::AuthRequired => false,
        }
    }

    /// INPUT_REQUIRED and AUTH_REQUIRED: the task waits for the client.
    #[must_use]
    pub const fn is_interrupted(self) -> bool {
        match self {
            Self::InputRequired | Self::AuthRequired => true,
            Self::Unspecified
            | Self::Submitted
            | Self::Working
            | Self::Completed
            | Self::Failed
            | Self::Canceled
            | Self::Rejected => false,
        }
    }

    /// The state for a proto enum number.
    #[must_use]
    pub fn from_number(number: i64) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|state| i64::from(state.number()) == number)
    }

    /// Reads any accepted spelling: `TASK_STATE_WORKING`, `WORKING`, `working`,
    /// `input-required`, the v0.3 gRPC `TASK_STATE_CANCELLED`, or a number.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        let upper = name.trim().to_ascii_uppercase().replace('-', "_");
        let short = upper.strip_prefix("TASK_STATE_").unwrap_or(&upper);
        let state = match short {
            "UNSPECIFIED" | "UNKNOWN" => Self::Unspecified,
            "SUBMITTED" => Self::Submitted,
            "WORKING" => Self::Working,
            "COMPLETED" => Self::Completed,
            "FAILED" => Self::Failed,
            "CANCELED" | "CANCELLED" => Self::Canceled,
            "INPUT_REQUIRED" => Self::InputRequired,
            "REJECTED" => Self::Rejected,
            "AUTH_REQUIRED" => Self::AuthRequired,
            number => return number.parse().ok().and_then(Self::from_number),
        };
        Some(state)
    }
}

/// Who sent a message (proto `Role`). Not `#[non_exhaustive]`, like [`TaskState`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Role {
    /// Invalid in valid data.
    #[default]
    Unspecified,
    /// Sent by the client.
    User,
    /// Sent by the agent.
    Agent,
}

impl Role {
    /// Every role, in numeric order.
    pub const ALL: [Role; 3] = [Self::Unspecified, Self::User, Self::Agent];

    /// The proto name, as written on the wire.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Unspecified => "ROLE_UNSPECIFIED",
            Self::User => "ROLE_USER",
            Self::Agent => "ROLE_AGENT",
        }
    }

    /// The proto enum number.
    #[must_use]
    pub const fn number(self) -> i32 {
        match self {
            Self::Unspecified => 0,
            Self::User => 1,
            Self::Agent => 2,
        }
    }

    /// The role for a proto enum number.
    #[must_use]
    pub fn from_number(number: i64) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|role| i64::from(role.number()) == number)
    }

    /// Reads `ROLE_USER`, `USER`, `user` (v0.3) or a number.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        let upper = name.trim().to_ascii_uppercase();
        let short = upper.strip_prefix("ROLE_").unwrap_or(&upper);
        let role = match short {
            "UNSPECIFIED" => Self::Unspecified,
            "USER" => Self::User,
            "AGENT" => Self::Agent,
            number => return number.parse().ok().and_then(Self::from_number),
        };
        Some(role)
    }
}

macro_rules! proto_enum_serde {
    ($name:ident, $expected:literal) => {
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownEnumValue;
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Self::from_name(text).ok_or_else(|| UnknownEnumValue {
                    enum_name: stringify!($name),
                    value: text.chars().take(64).collect(),
                })
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        // Hand-written because the wire allows numbers and several spellings.
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct EnumVisitor;
                impl Visitor<'_> for EnumVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expected)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$name, E> {
                        v.parse().map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        $name::from_number(v).ok_or_else(|| {
                            E::custom(format!("unknown {} number {v}", stringify!($name)))
                        })
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        let v = i64::try_from(v).unwrap_or(i64::MAX);
                        self.visit_i64(v)
                    }
                }
                deserializer.deserialize_any(EnumVisitor)
            }
        }
    };
}

proto_enum_serde!(TaskState, "a TaskState name such as \"TASK_STATE_WORKING\"");
proto_enum_serde!(Role, "a Role name such as \"ROLE_USER\"");

/// The enums whose unknown values read as `*_UNSPECIFIED` where the protocol allows it.
pub(crate) trait ProtoEnum: Default {
    fn from_name(name: &str) -> Option<Self>;
    fn from_number(number: i64) -> Option<Self>;
}

impl ProtoEnum for TaskState {
    fn from_name(name: &str) -> Option<Self> {
        Self::from_name(name)
    }
    fn from_number(number: i64) -> Option<Self> {
        Self::from_number(number)
    }
}

impl ProtoEnum for Role {
    fn from_name(name: &str) -> Option<Self> {
        Self::from_name(name)
    }
    fn from_number(number: i64) -> Option<Self> {
        Self::from_number(number)
    }
}

/// `deserialize_with` for the fields where the protocol lets an unknown enum value mean
/// `*_UNSPECIFIED` (a message's `role`, the ListTasks `status` filter): an unknown name or
/// number, or `null`, reads as the default; any other JSON type is still refused.
pub(crate) fn unknown_as_unspecified<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: ProtoEnum,
{
    struct Lenient<T>(std::marker::PhantomData<T>);
    impl<T: ProtoEnum> Visitor<'_> for Lenient<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an enum name or number")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            Ok(T::from_name(v).unwrap_or_default())
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
            Ok(T::from_number(v).unwrap_or_default())
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
            self.visit_i64(i64::try_from(v).unwrap_or(i64::MAX))
        }
        fn visit_unit<E: de::Error>(self) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_none<E: de::Error>(self) -> Result<T, E> {
            Ok(T::default())
        }
    }
    deserializer.deserialize_any(Lenient(std::marker::PhantomData))
}

/// A string that names no value of the enum.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {enum_name} {value:?}")]
pub struct UnknownEnumValue {
    enum_name: &'static str,
    value: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_round_trips_by_name_and_number() {
        for state in TaskState::ALL {
            let json = serde_json::to_string(&state).unwrap();
            assert_eq!(json, format!("\"{}\"", state.as_str()));
            assert_eq!(serde_json::from_str::<TaskState>(&json).unwrap(), state);
            let number = state.number().to_string();
            assert_eq!(serde_json::from_str::<TaskState>(&number).unwrap(), state);
            assert_eq!(TaskState::from_name(state.v0_3_name()), Some(state));
        }
    }

    #[test]
    fn short_and_legacy_spellings_are_accepted() {
        let cases = [
            ("WORKING", TaskState::Working),
            ("input-required", TaskState::InputRequired),
            ("INPUT_REQUIRED", TaskState::InputRequired),
            ("TASK_STATE_CANCELLED", TaskState::Canceled),
            ("auth-required", TaskState::AuthRequired),
            ("7", TaskState::Rejected),
        ];
        for (text, state) in cases {
            assert_eq!(TaskState::from_name(text), Some(state), "{text}");
        }
        assert_eq!(TaskState::from_name("SLEEPING"), None);
    }

    #[test]
    fn unknown_names_and_numbers_are_refused_with_the_value() {
        let err = serde_json::from_str::<TaskState>("\"TASK_STATE_SLEEPING\"").unwrap_err();
        assert!(err.to_string().contains("TASK_STATE_SLEEPING"), "{err}");
        assert!(serde_json::from_str::<TaskState>("9").is_err());
        assert!(serde_json::from_str::<Role>("\"ROLE_ROBOT\"").is_err());
    }

    #[test]
    fn unknown_role_and_list_filter_read_as_unspecified_but_task_state_is_refused() {
        #[derive(serde::Deserialize)]
        struct Lenient {
            #[serde(deserialize_with = "unknown_as_unspecified")]
            role: Role,
            #[serde(deserialize_with = "unknown_as_unspecified")]
            status: TaskState,
        }
        let read: Lenient =
            serde_json::from_str(r#"{"role":"ROLE_ROBOT","status":"UNRECOGNIZED"}"#).unwrap();
        assert_eq!(
            (read.role, read.status),
            (Role::Unspecified, TaskState::Unspecified)
        );
        let read: Lenient = serde_json::from_str(r#"{"role":7,"status":"WORKING"}"#).unwrap();
        assert_eq!(
            (read.role, read.status),
            (Role::Unspecified, TaskState::Working)
        );
        assert!(serde_json::from_str::<Lenient>(r#"{"role":true,"status":1}"#).is_err());
        assert!(serde_json::from_str::<TaskState>("\"UNRECOGNIZED\"").is_err());
    }

    #[test]
    fn terminal_and_interrupted_classes_follow_pm_03() {
        use TaskState::*;
        let cases = [
            (Unspecified, false, false),
            (Submitted, false, false),
            (Working, false, false),
            (Completed, true, false),
            (Failed, true, false),
            (Canceled, true, false),
            (InputRequired, false, true),
            (Rejected, true, false),
            (AuthRequired, false, true),
        ];
        for (state, terminal, interrupted) in cases {
            assert_eq!(state.is_terminal(), terminal, "{state}");
            assert_eq!(state.is_interrupted(), interrupted, "{state}");
        }
    }

    #[test]
    fn roles_accept_every_spelling() {
        for (text, role) in [
            ("ROLE_USER", Role::User),
            ("agent", Role::Agent),
            ("1", Role::User),
        ] {
            assert_eq!(Role::from_name(text), Some(role));
        }
        assert_eq!(serde_json::from_str::<Role>("2").unwrap(), Role::Agent);
    }
}
