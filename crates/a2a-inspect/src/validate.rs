//! Findings about an agent card: what is missing or wrong, in the spec's words.
