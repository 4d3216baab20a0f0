//! Percent-decoding (RFC 3986) of path segments and query strings. The bindings split a path
//! before decoding it, so an id holding `%2F` stays one segment.

/// Decodes `%XX` escapes; with `plus_as_space` (query strings) `+` is a space. A `%` not
/// followed by two hex digits is kept as written; bytes that are not UTF-8 become U+FFFD.
pub(crate) fn decode(text: &str, plus_as_space: bool) -> String {
    if !(text.contains('%') || plus_as_space && text.contains('+')) {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        match byte {
            b'%' => {
                let escaped = bytes
                    .get(index + 1..index + 3)
                    .and_then(|pair| Some(hex_value(pair[0])? * 16 + hex_value(pair[1])?));
                if let Some(value) = escaped {
                    decoded.push(value);
                    index += 3;
                    continue;
                }
                decoded.push(b'%');
            }
            b'+' if plus_as_space => decoded.push(b' '),
            other => decoded.push(other),
        }
        index += 1;
    }
    match String::from_utf8(decoded) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    }
}

/// The `name=value` pairs of a query string, decoded, in order; empty pieces are skipped.
pub(crate) fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|piece| !piece.is_empty())
        .map(|piece| {
            let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
            (decode(name, true), decode(value, true))
        })
        .collect()
}

fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_decoded_and_broken_ones_kept() {
        let cases = [
            ("abc", false, "abc"),
            ("a%2Fb", false, "a/b"),
            ("a%3acancel", false, "a:cancel"),
            ("a+b", false, "a+b"),
            ("a+b", true, "a b"),
            ("100%", false, "100%"),
            ("%zz%4", false, "%zz%4"),
            ("caf%C3%A9", false, "café"),
            ("%FF", false, "\u{FFFD}"),
        ];
        for (text, plus, expected) in cases {
            assert_eq!(decode(text, plus), expected, "{text}");
        }
    }

    #[test]
    fn query_strings_split_into_decoded_pairs() {
        let pairs = query_pairs("a=1&&b=x%20y&flag&status=WORKING,COMPLETED&A2A-Version=1.0");
        let expected = [
            ("a", "1"),
            ("b", "x y"),
            ("flag", ""),
            ("status", "WORKING,COMPLETED"),
            ("A2A-Version", "1.0"),
        ];
        let pairs: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        assert_eq!(pairs, expected);
    }
}
