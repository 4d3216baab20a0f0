//! Every rule, in the order reports list them.
//!
//! Every rule, area by area, in the order reports list them.

use crate::rule::Rule;

/// Every rule of the tester.
#[must_use]
pub fn rules() -> Vec<Rule> {
    [
        crate::card::RULES,
        crate::signatures::RULES,
        crate::operations::RULES,
        crate::errors::RULES,
        crate::streaming::RULES,
        crate::listing::RULES,
        crate::push::RULES,
        crate::equivalence::RULES,
        crate::versions::RULES,
        crate::v03::RULES,
    ]
    .concat()
}
