//! The report of a run, in each of its forms.
//!
//! `model`: the results and counts; written by `table`, `json`, `junit`; `markdown` lists
//! the rules.

mod json;
mod junit;
mod markdown;
mod model;
mod table;

pub use self::json::json;
pub use self::junit::junit;
pub use self::markdown::{GENERATED_END, rules_markdown, rules_text};
pub use self::model::{CheckResult, Counts, InterfaceInfo, Report, SCHEMA, Summary};
pub use self::table::table;
