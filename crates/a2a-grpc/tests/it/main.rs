//! Integration tests of the protobuf conversions: every golden JSON fixture of a2a-types
//! through protobuf and back, the proto values that must be refused, what protobuf cannot
//! carry, and our descriptor against the official Python SDK's.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod descriptor;
/// The fixture type table, shared with a2a-types' golden tests.
#[path = "../../../a2a-types/tests/it/fixture_types.rs"]
mod fixture_types;
mod golden;
mod losses;
mod refusals;
mod values;
mod wire;
