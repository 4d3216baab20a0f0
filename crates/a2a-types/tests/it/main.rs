//! Integration tests of the wire model: golden fixtures from the spec digest, the seeds
//! and the official Python SDK.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod chunk;
mod fixture_types;
mod golden;
