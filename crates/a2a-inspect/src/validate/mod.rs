//! Findings about an agent card: what is missing or wrong, in the spec's words.
//!
//! [`card_findings`] reads the card exactly as it was served (a JSON value, not a parsed
//! struct, so nothing the agent sent is lost or mended on the way) and checks it against the
//! A2A 1.0 `AgentCard`: its REQUIRED members, member names and types, interfaces (binding
//! names, `Major.Minor` versions, URLs), capabilities, security schemes and the requirements
//! that name them, skills, media types and signatures, plus members left over from v0.3.
//!
//! ```
//! use a2a_inspect::validate::{Level, card_findings};
//! use serde_json::json;
//!
//! let card = json!({"name": "Echo", "version": "1.0.0"});
//! let findings = card_findings(&card);
//! let missing = findings
//!     .iter()
//!     .find(|finding| finding.path == "description")
//!     .map(|finding| finding.level);
//! assert_eq!(missing, Some(Level::Error));
//! ```

mod card;
mod checker;
mod finding;
mod interfaces;
mod members;
mod security;
mod signatures;
mod skills;

pub use self::card::card_findings;
pub use self::finding::{Finding, Level};

#[cfg(test)]
mod tests;
