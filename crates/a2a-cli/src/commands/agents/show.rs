//! The registry's answers as the human output shows them.

use serde_json::Value;

use super::registry::RegistryCallError;

/// The records of a `GET /agents` answer: a bare array, or `{"agents": […]}` as the live
/// KubeMQ broker answers.
pub(super) fn agents_of(answer: &Value) -> Result<&[Value], RegistryCallError> {
    match answer {
        Value::Array(agents) => Ok(agents),
        Value::Object(wrapped) => match wrapped.get("agents") {
            Some(Value::Array(agents)) => Ok(agents),
            Some(Value::Null) => Ok(&[]),
            _ => Err(RegistryCallError::Unreadable(
                "the agent list is neither an array nor {\"agents\": [...]}".to_owned(),
            )),
        },
        _ => Err(RegistryCallError::Unreadable(
            "the agent list is not an array".to_owned(),
        )),
    }
}

/// One line per agent under a header: id, name, URL and when it was last seen.
pub(super) fn agents_table(agents: &[Value]) -> String {
    if agents.is_empty() {
        return "no agents registered\n".to_owned();
    }
    let header = ["AGENT ID", "NAME", "URL", "LAST SEEN"].map(str::to_owned);
    let rows: Vec<[String; 4]> = agents
        .iter()
        .map(|agent| {
            [
                text_of(agent, "agent_id"),
                text_of(agent, "name"),
                url_of(agent),
                text_of(agent, "last_seen"),
            ]
        })
        .collect();
    let mut widths = header.each_ref().map(|cell| cell.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (index, (cell, width)) in row.iter().zip(widths).enumerate() {
            if index + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}  "));
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// One agent's record as `name: value` lines.
pub(super) fn record_text(record: &Value) -> String {
    let mut lines = vec![
        ("agent id", text_of(record, "agent_id")),
        ("name", text_of(record, "name")),
        ("description", text_of(record, "description")),
        ("version", text_of(record, "version")),
        ("url", url_of(record)),
    ];
    if let Some(interfaces) = record.get("supportedInterfaces").and_then(Value::as_array) {
        for interface in interfaces {
            lines.push((
                "interface",
                format!(
                    "{} {}",
                    text_of(interface, "protocolBinding"),
                    text_of(interface, "url")
                ),
            ));
        }
    }
    if let Some(skills) = record.get("skills").and_then(Value::as_array) {
        for skill in skills {
            let name = match text_of(skill, "name") {
                name if name.is_empty() => text_of(skill, "id"),
                name => name,
            };
            let tags: Vec<&str> = skill
                .get("tags")
                .and_then(Value::as_array)
                .map(|tags| tags.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let skill = if tags.is_empty() {
                name
            } else {
                format!("{name} (tags: {})", tags.join(", "))
            };
            lines.push(("skill", skill));
        }
    }
    lines.push(("registered at", text_of(record, "registered_at")));
    lines.push(("last seen", text_of(record, "last_seen")));
    let mut text = String::new();
    for (name, value) in lines.into_iter().filter(|(_, value)| !value.is_empty()) {
        text.push_str(&format!("{:<15}{value}\n", format!("{name}:")));
    }
    text
}

/// A string member of `value`; empty when missing or not a string.
pub(super) fn text_of(value: &Value, member: &str) -> String {
    value
        .get(member)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The record's `url`, else its first interface's.
pub(super) fn url_of(record: &Value) -> String {
    match text_of(record, "url") {
        url if !url.is_empty() => url,
        _ => record
            .get("supportedInterfaces")
            .and_then(Value::as_array)
            .and_then(|interfaces| interfaces.first())
            .map(|interface| text_of(interface, "url"))
            .unwrap_or_default(),
    }
}
