//! A finding about a card and how much it matters.

/// One thing found in a card.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Finding {
    /// How much it matters.
    pub level: Level,
    /// Where: a JSON path such as `supportedInterfaces[0].url` (empty for the card as a
    /// whole; map keys that are not plain names are quoted: `securitySchemes["my key"]`).
    pub path: String,
    /// What the spec says, applied to this card.
    pub message: String,
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Level {
    /// A MUST of the spec is violated: clients may refuse the card or fail to call the agent.
    Error,
    /// A SHOULD is not followed, or it is likely a mistake.
    Warning,
    /// A note: worth knowing, nothing wrong.
    Info,
}
