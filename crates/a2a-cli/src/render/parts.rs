//! Message parts as text: text as is, files and data as a short note.

use a2a_types::{Part, PartContent};

/// One part on one line: text as is, files and data as a short bracketed note.
pub(crate) fn part(part: &Part) -> String {
    let mut about = Vec::new();
    if !part.filename.is_empty() {
        about.push(part.filename.clone());
    }
    if !part.media_type.is_empty() {
        about.push(part.media_type.clone());
    }
    match &part.content {
        PartContent::Text(text) => text.clone(),
        PartContent::Raw(bytes) => {
            about.push(format!("{} bytes", bytes.len()));
            format!("[file {}]", about.join(", "))
        }
        PartContent::Url(url) => {
            about.push(url.clone());
            format!("[file {}]", about.join(", "))
        }
        PartContent::Data(data) => data.to_string(),
        // `PartContent` is `#[non_exhaustive]`: a kind this version does not know.
        _ => "[part]".to_owned(),
    }
}

/// The parts one after the other, joined with newlines, as a client reads text.
pub(crate) fn parts(parts: &[Part]) -> String {
    parts.iter().map(part).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use a2a_types::Part;
    use serde_json::json;

    use super::*;

    #[test]
    fn parts_read_as_text_or_a_short_note() {
        let cases = [
            (Part::text("hello"), "hello"),
            (
                Part::raw(b"tck".to_vec())
                    .with_filename("output.txt")
                    .with_media_type("text/plain"),
                "[file output.txt, text/plain, 3 bytes]",
            ),
            (
                Part::url("https://example.com/a.pdf"),
                "[file https://example.com/a.pdf]",
            ),
            (Part::data(json!({"k": 1})), r#"{"k":1}"#),
        ];
        for (given, expected) in cases {
            assert_eq!(part(&given), expected);
        }
    }
}
