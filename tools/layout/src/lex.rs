//! Rust source as a token stream: identifiers, punctuation and literals, comments dropped.

/// One token and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) kind: Kind,
    pub(crate) line: usize,
}

/// What a token is; only what the layout rules need is kept apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An identifier or keyword (raw identifiers lose their `r#`).
    Ident(String),
    /// `::`
    PathSep,
    /// Any other punctuation character.
    Punct(char),
    /// A string literal's contents (escapes left as written).
    Str(String),
    /// A number, character, byte or lifetime: nothing the rules look into.
    Other,
}

/// Splits `source` into tokens. Never fails: an unterminated literal or comment runs to the end.
pub(crate) fn tokens(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut lexer = Lexer {
        chars: &chars,
        at: 0,
        line: 1,
        out: Vec::new(),
    };
    lexer.run();
    lexer.out
}

struct Lexer<'a> {
    chars: &'a [char],
    at: usize,
    line: usize,
    out: Vec<Token>,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn push(&mut self, kind: Kind, line: usize) {
        self.out.push(Token { kind, line });
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            let line = self.line;
            match c {
                c if c.is_whitespace() => {
                    self.bump();
                }
                '/' if self.peek(1) == Some('/') => self.line_comment(),
                '/' if self.peek(1) == Some('*') => self.block_comment(),
                '"' => {
                    self.bump();
                    let text = self.quoted();
                    self.push(Kind::Str(text), line);
                }
                'r' | 'b' | 'c' if self.raw_or_prefixed_string(line) => {}
                '\'' => self.quote_or_lifetime(line),
                c if c.is_ascii_digit() => self.number(line),
                c if c == '_' || c.is_alphabetic() => self.ident(line),
                ':' if self.peek(1) == Some(':') => {
                    self.bump();
                    self.bump();
                    self.push(Kind::PathSep, line);
                }
                c => {
                    self.bump();
                    self.push(Kind::Punct(c), line);
                }
            }
        }
    }

    fn line_comment(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                break;
            }
            self.bump();
        }
    }

    fn block_comment(&mut self) {
        self.bump();
        self.bump();
        let mut depth = 1usize;
        while depth > 0 {
            match (self.peek(0), self.peek(1)) {
                (Some('/'), Some('*')) => {
                    self.bump();
                    self.bump();
                    depth += 1;
                }
                (Some('*'), Some('/')) => {
                    self.bump();
                    self.bump();
                    depth -= 1;
                }
                (Some(_), _) => {
                    self.bump();
                }
                (None, _) => break,
            }
        }
    }

    /// The rest of a `"…"` literal after its opening quote.
    fn quoted(&mut self) -> String {
        let mut text = String::new();
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    text.push(c);
                    if let Some(escaped) = self.bump() {
                        text.push(escaped);
                    }
                }
                '"' => break,
                c => text.push(c),
            }
        }
        text
    }

    /// `r"…"`, `r#"…"#`, `b"…"`, `br"…"`, `c"…"`, `b'x'`; false when `c` starts an identifier.
    fn raw_or_prefixed_string(&mut self, line: usize) -> bool {
        let mut ahead = 1;
        if self.peek(0) != Some('r') && self.peek(1) == Some('r') {
            ahead = 2;
        }
        let raw = self.peek(ahead - 1) == Some('r');
        if self.peek(0) == Some('b') && self.peek(1) == Some('\'') {
            self.bump();
            self.quote_or_lifetime(line);
            return true;
        }
        if !raw {
            if self.peek(1) == Some('"') {
                self.bump();
                self.bump();
                let text = self.quoted();
                self.push(Kind::Str(text), line);
                return true;
            }
            return false;
        }
        let mut hashes = 0;
        while self.peek(ahead + hashes) == Some('#') {
            hashes += 1;
        }
        if self.peek(ahead + hashes) != Some('"') {
            return false;
        }
        for _ in 0..ahead + hashes + 1 {
            self.bump();
        }
        let mut text = String::new();
        while let Some(c) = self.bump() {
            if c == '"' && (0..hashes).all(|i| self.peek(i) == Some('#')) {
                for _ in 0..hashes {
                    self.bump();
                }
                break;
            }
            text.push(c);
        }
        self.push(Kind::Str(text), line);
        true
    }

    /// A character literal (`'a'`, `'\n'`) or a lifetime (`'a`, `'static`).
    fn quote_or_lifetime(&mut self, line: usize) {
        self.bump();
        if self.peek(0) == Some('\\') {
            while let Some(c) = self.bump() {
                if c == '\'' && self.chars.get(self.at.wrapping_sub(2)) != Some(&'\\') {
                    break;
                }
            }
        } else if self.peek(1) == Some('\'') {
            self.bump();
            self.bump();
        } else {
            while self
                .peek(0)
                .is_some_and(|c| c == '_' || c.is_alphanumeric())
            {
                self.bump();
            }
        }
        self.push(Kind::Other, line);
    }

    fn number(&mut self, line: usize) {
        while let Some(c) = self.peek(0) {
            let fraction = c == '.' && self.peek(1).is_some_and(|n| n.is_ascii_digit());
            if c == '_' || c.is_alphanumeric() || fraction {
                self.bump();
            } else {
                break;
            }
        }
        self.push(Kind::Other, line);
    }

    fn ident(&mut self, line: usize) {
        if self.peek(0) == Some('r') && self.peek(1) == Some('#') {
            self.bump();
            self.bump();
        }
        let mut name = String::new();
        while let Some(c) = self.peek(0) {
            if c == '_' || c.is_alphanumeric() {
                name.push(c);
                self.bump();
            } else {
                break;
            }
        }
        self.push(Kind::Ident(name), line);
    }
}

#[cfg(test)]
mod tests {
    use super::{Kind, tokens};

    fn idents(source: &str) -> Vec<String> {
        tokens(source)
            .into_iter()
            .filter_map(|t| match t.kind {
                Kind::Ident(name) => Some(name),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn comments_strings_and_lifetimes_hide_no_identifiers() {
        let source = "// crate::a\n/* crate::b /* nested */ */ let s = \"crate::c\"; \
                      let r = r#\"crate::d\"#; fn f<'a>(x: &'a str) -> char { 'x' } use";
        assert_eq!(
            idents(source),
            ["let", "s", "let", "r", "fn", "f", "x", "str", "char", "use"]
        );
    }

    #[test]
    fn lines_are_counted_across_comments_and_strings() {
        let found = tokens("/*\n\n*/ \"a\nb\"\nend");
        assert_eq!(found.last().map(|t| t.line), Some(5));
    }
}
