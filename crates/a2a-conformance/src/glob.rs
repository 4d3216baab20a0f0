//! `--filter` patterns on rule ids.
//!
//! `--filter` patterns on rule ids: `*` matches any run of characters, `?` one character.

/// Whether `text` matches `pattern`.
pub(crate) fn matches(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    // Classic two-pointer match with backtracking to the last `*`.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == '?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    star = Some((star_p, star_t + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_and_question_marks_match_rule_ids() {
        assert!(matches("card.*", "card.required-fields"));
        assert!(matches("*.task-not-found", "errors.task-not-found"));
        assert!(matches("stream?.*", "streams.x"));
        assert!(matches("*", "anything"));
        assert!(!matches("card.*", "errors.card"));
        assert!(!matches("card", "card.required-fields"));
        assert!(matches("e*s.*found", "errors.task-not-found"));
    }
}
