//! What one source file says about modules: its `mod` declarations, the paths it names, and the
//! logic items a `mod.rs`/`lib.rs` must not hold.

use crate::lex::{Kind, Token, tokens};

/// A `mod name;` declaration outside test code (inline blocks are [`Scan::inline`]).
#[derive(Debug, Clone)]
pub(crate) struct ModDecl {
    /// The inline modules the declaration sits in, outermost first.
    pub(crate) scope: Vec<String>,
    pub(crate) name: String,
    /// The `#[path = "…"]` attribute, when there is one.
    pub(crate) path: Option<String>,
}

/// A path the file names, from a `use` tree or from code.
#[derive(Debug, Clone)]
pub(crate) struct PathRef {
    /// The inline modules the path sits in, outermost first.
    pub(crate) scope: Vec<String>,
    /// The segments as written, `crate`/`super`/`self` included.
    pub(crate) segments: Vec<String>,
    pub(crate) line: usize,
    /// A `pub use`: the file re-exports the item.
    pub(crate) reexport: bool,
    /// A `use …::*`.
    pub(crate) glob: bool,
    /// The name the `use` binds (its alias or last segment).
    pub(crate) binds: Option<String>,
}

/// A function or `impl` block at a file's top level.
#[derive(Debug, Clone)]
pub(crate) struct LogicItem {
    pub(crate) line: usize,
    pub(crate) what: String,
}

/// Everything the layout rules read from one file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scan {
    pub(crate) mods: Vec<ModDecl>,
    /// Inline (non-test) module blocks, each as its scope path.
    pub(crate) inline: Vec<Vec<String>>,
    pub(crate) paths: Vec<PathRef>,
    pub(crate) logic: Vec<LogicItem>,
}

/// Reads `source`.
pub(crate) fn scan(source: &str) -> Scan {
    let toks = tokens(source);
    let mut scanner = Scanner {
        toks: &toks,
        at: 0,
        depth: 0,
        scope: Vec::new(),
        out: Scan::default(),
    };
    scanner.run();
    scanner.out
}

#[derive(Default)]
struct Attributes {
    test: bool,
    path: Option<String>,
}

struct Scanner<'a> {
    toks: &'a [Token],
    at: usize,
    depth: usize,
    /// Open inline modules: name and the brace depth inside them.
    scope: Vec<(String, usize)>,
    out: Scan,
}

impl Scanner<'_> {
    fn kind(&self, ahead: usize) -> Option<&Kind> {
        self.toks.get(self.at + ahead).map(|t| &t.kind)
    }

    fn ident(&self, ahead: usize) -> Option<&str> {
        match self.kind(ahead) {
            Some(Kind::Ident(name)) => Some(name),
            _ => None,
        }
    }

    fn is_punct(&self, ahead: usize, c: char) -> bool {
        self.kind(ahead) == Some(&Kind::Punct(c))
    }

    fn line(&self) -> usize {
        self.toks.get(self.at).map_or(0, |t| t.line)
    }

    fn scope_names(&self) -> Vec<String> {
        self.scope.iter().map(|(name, _)| name.clone()).collect()
    }

    fn run(&mut self) {
        let mut attributes = Attributes::default();
        while self.at < self.toks.len() {
            if self.is_punct(0, '#') && (self.is_punct(1, '[') || self.is_punct(1, '!')) {
                self.attribute(&mut attributes);
                continue;
            }
            if attributes.test {
                attributes = Attributes::default();
                self.skip_item();
                continue;
            }
            let taken = std::mem::take(&mut attributes);
            match self.kind(0) {
                Some(Kind::Ident(word)) if word == "mod" => self.module(taken),
                Some(Kind::Ident(word)) if word == "use" => self.use_item(),
                Some(Kind::Ident(word)) if word == "fn" || word == "impl" => self.maybe_logic(),
                Some(Kind::Ident(_)) | Some(Kind::Punct('$')) => self.maybe_path(),
                Some(Kind::Punct('{')) => {
                    self.depth += 1;
                    self.at += 1;
                }
                Some(Kind::Punct('}')) => {
                    self.depth = self.depth.saturating_sub(1);
                    if self
                        .scope
                        .last()
                        .is_some_and(|(_, depth)| *depth > self.depth)
                    {
                        self.scope.pop();
                    }
                    self.at += 1;
                }
                _ => self.at += 1,
            }
        }
    }

    /// `#[…]` or `#![…]`: notes `cfg(test)` and `path = "…"`.
    fn attribute(&mut self, attributes: &mut Attributes) {
        let inner = self.is_punct(1, '!');
        self.at += if inner { 2 } else { 1 };
        let start = self.at;
        self.skip_balanced();
        let body = &self.toks[start..self.at];
        let word = |i: usize| match body.get(i).map(|t| &t.kind) {
            Some(Kind::Ident(name)) => Some(name.as_str()),
            _ => None,
        };
        if word(1) == Some("cfg") && !inner {
            let negated = body.iter().any(|t| t.kind == Kind::Ident("not".into()));
            let test = body.iter().any(|t| t.kind == Kind::Ident("test".into()));
            attributes.test = test && !negated;
        }
        if word(1) == Some("path")
            && let Some(Kind::Str(path)) = body.get(3).map(|t| &t.kind)
        {
            attributes.path = Some(path.clone());
        }
    }

    /// Skips one balanced `(…)`, `[…]` or `{…}` group starting at the cursor.
    fn skip_balanced(&mut self) {
        let mut nesting = 0usize;
        while let Some(kind) = self.kind(0).cloned() {
            self.at += 1;
            match kind {
                Kind::Punct('(' | '[' | '{') => nesting += 1,
                Kind::Punct(')' | ']' | '}') => {
                    nesting = nesting.saturating_sub(1);
                    if nesting == 0 {
                        return;
                    }
                }
                _ if nesting == 0 => return,
                _ => {}
            }
        }
    }

    /// Skips a `#[cfg(test)]` item: to its `;`, its closing brace, or a `,` in a list.
    fn skip_item(&mut self) {
        let mut nesting = 0usize;
        while let Some(kind) = self.kind(0).cloned() {
            match kind {
                Kind::Punct('(' | '[' | '{') => nesting += 1,
                Kind::Punct(')' | ']' | '}') => {
                    if nesting == 0 {
                        return;
                    }
                    nesting -= 1;
                    if nesting == 0 && kind == Kind::Punct('}') {
                        self.at += 1;
                        return;
                    }
                }
                Kind::Punct(';' | ',') if nesting == 0 => {
                    self.at += 1;
                    return;
                }
                _ => {}
            }
            self.at += 1;
        }
    }

    fn module(&mut self, attributes: Attributes) {
        let Some(name) = self.ident(1).map(str::to_owned) else {
            self.at += 1;
            return;
        };
        if self.is_punct(2, ';') {
            let decl = ModDecl {
                scope: self.scope_names(),
                name,
                path: attributes.path,
            };
            self.out.mods.push(decl);
            self.at += 3;
        } else if self.is_punct(2, '{') {
            self.at += 3;
            self.depth += 1;
            self.scope.push((name, self.depth));
            self.out.inline.push(self.scope_names());
        } else {
            self.at += 1;
        }
    }

    /// Whether the `use` at the cursor is `pub use` / `pub(…) use`.
    fn is_pub_use(&self) -> bool {
        let Some(before) = self.at.checked_sub(1).and_then(|i| self.toks.get(i)) else {
            return false;
        };
        match &before.kind {
            Kind::Ident(word) => word == "pub",
            Kind::Punct(')') => {
                let mut i = self.at - 1;
                while i > 0 && self.toks[i].kind != Kind::Punct('(') {
                    i -= 1;
                }
                i > 0 && self.toks[i - 1].kind == Kind::Ident("pub".into())
            }
            _ => false,
        }
    }

    fn use_item(&mut self) {
        let reexport = self.is_pub_use();
        let line = self.line();
        self.at += 1;
        let mut leaves = Vec::new();
        self.use_tree(Vec::new(), &mut leaves);
        for (segments, glob, binds) in leaves {
            let path = PathRef {
                scope: self.scope_names(),
                segments,
                line,
                reexport,
                glob,
                binds,
            };
            self.out.paths.push(path);
        }
        while self.kind(0).is_some() && !self.is_punct(0, ';') {
            self.at += 1;
        }
    }

    /// One use tree: `a::b`, `a::{…}`, `a::*`, `a as b`; leaves are (segments, glob, name).
    fn use_tree(
        &mut self,
        prefix: Vec<String>,
        leaves: &mut Vec<(Vec<String>, bool, Option<String>)>,
    ) {
        let mut segments = prefix;
        loop {
            match self.kind(0) {
                Some(Kind::Ident(name)) if name != "as" => {
                    segments.push(name.clone());
                    self.at += 1;
                    if self.kind(0) == Some(&Kind::PathSep) {
                        self.at += 1;
                    } else {
                        break;
                    }
                }
                Some(Kind::PathSep) => self.at += 1,
                Some(Kind::Punct('{')) => {
                    self.at += 1;
                    while self.kind(0).is_some() && !self.is_punct(0, '}') {
                        self.use_tree(segments.clone(), leaves);
                        if self.is_punct(0, ',') {
                            self.at += 1;
                        } else if !self.is_punct(0, '}') {
                            return;
                        }
                    }
                    self.at += 1;
                    return;
                }
                Some(Kind::Punct('*')) => {
                    self.at += 1;
                    leaves.push((segments, true, None));
                    return;
                }
                _ => break,
            }
        }
        if segments.last().is_some_and(|s| s == "self") {
            segments.pop();
        }
        let mut binds = segments.last().cloned();
        if self.ident(0) == Some("as") {
            binds = self.ident(1).map(str::to_owned);
            self.at += 2;
        }
        if !segments.is_empty() {
            leaves.push((segments, false, binds));
        }
    }

    /// `fn name` or `impl …` at the file's top level.
    fn maybe_logic(&mut self) {
        let word = self.ident(0).unwrap_or_default().to_owned();
        if self.depth == 0 {
            let what = match (word.as_str(), self.kind(1)) {
                ("fn", Some(Kind::Ident(name))) => Some(format!("fn {name}")),
                ("impl", Some(Kind::Ident(_) | Kind::Punct('<'))) => Some(self.impl_head()),
                _ => None,
            };
            if let Some(what) = what {
                self.out.logic.push(LogicItem {
                    line: self.line(),
                    what,
                });
            }
        }
        self.at += 1;
    }

    /// `impl Foo for Bar`, as written up to its opening brace.
    fn impl_head(&self) -> String {
        let mut head = String::from("impl");
        for token in self.toks[self.at + 1..].iter().take(12) {
            match &token.kind {
                Kind::Punct('{') => break,
                Kind::Ident(word) if word == "where" => break,
                Kind::Ident(word) => {
                    head.push(' ');
                    head.push_str(word);
                }
                Kind::PathSep => head.push_str("::"),
                Kind::Punct(c) => head.push(*c),
                Kind::Str(_) | Kind::Other => {}
            }
        }
        head
    }

    /// A path in code (`crate::a::B`, `super::x`, `child::f`): records it, moves past it.
    fn maybe_path(&mut self) {
        let after_sep = self.at > 0 && self.toks[self.at - 1].kind == Kind::PathSep;
        if self.is_punct(0, '$') {
            self.at += 1;
            return;
        }
        let macro_crate = self.at > 0 && self.toks[self.at - 1].kind == Kind::Punct('$');
        if after_sep || self.kind(1) != Some(&Kind::PathSep) {
            self.at += 1;
            return;
        }
        let line = self.line();
        let mut segments = Vec::new();
        while let Some(name) = self.ident(0).map(str::to_owned) {
            segments.push(if macro_crate && segments.is_empty() {
                "crate".to_owned()
            } else {
                name
            });
            self.at += 1;
            if self.kind(0) == Some(&Kind::PathSep) && matches!(self.kind(1), Some(Kind::Ident(_)))
            {
                self.at += 1;
            } else {
                break;
            }
        }
        let path = PathRef {
            scope: self.scope_names(),
            segments,
            line,
            reexport: false,
            glob: false,
            binds: None,
        };
        self.out.paths.push(path);
    }
}

#[cfg(test)]
mod tests {
    use super::scan;

    fn written(source: &str) -> Vec<String> {
        scan(source)
            .paths
            .iter()
            .map(|p| p.segments.join("::"))
            .collect()
    }

    #[test]
    fn use_trees_are_split_into_their_leaves() {
        let found = written("use crate::a::{self, b::{C, D as E}, f::*};");
        assert_eq!(
            found,
            [
                "crate::a",
                "crate::a::b::C",
                "crate::a::b::D",
                "crate::a::f"
            ]
        );
    }

    #[test]
    fn code_paths_are_read_whole_and_test_modules_skipped() {
        let source = "fn f() { let x = super::b::C::new(); crate::d::g(); }\n\
                      #[cfg(test)] mod tests { use crate::z; }";
        assert_eq!(written(source), ["super::b::C::new", "crate::d::g"]);
    }

    #[test]
    fn pub_use_is_a_reexport_and_top_level_fns_are_logic() {
        let found = scan("pub(crate) use self::a::B;\nmod a;\ntrait T { fn d() {} }\nfn f() {}");
        assert!(found.paths[0].reexport);
        assert_eq!(found.mods.len(), 1);
        let logic: Vec<_> = found
            .logic
            .iter()
            .map(|l| (l.line, l.what.clone()))
            .collect();
        assert_eq!(logic, [(4, "fn f".to_owned())]);
    }
}
