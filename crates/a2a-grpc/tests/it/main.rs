//! Integration tests of the protobuf conversions: every golden JSON fixture of a2a-types
//! through protobuf and back, the proto values that must be refused, what protobuf cannot
//! carry, and our descriptor against the official Python SDK's.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod descriptor;
mod golden;
mod losses;
mod refusals;
mod values;
mod wire;
