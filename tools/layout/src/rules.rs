//! The three layout rules, each turned into the problems it finds.

use std::path::PathBuf;

use crate::graph::{Edges, circles, shortest_circle};
use crate::tree::Tree;

/// The most lines a non-test source file may have.
pub(crate) const MAX_LINES: usize = 600;

/// One broken rule, with what to show and the entry that would allow it.
#[derive(Debug)]
pub(crate) struct Problem {
    pub(crate) rule: Rule,
    /// The file (for a circle: its first file) the allow-list entry names.
    pub(crate) path: PathBuf,
    pub(crate) message: String,
}

/// The rules; the allow list names them by [`Rule::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum Rule {
    Size,
    Circle,
    Facade,
}

impl Rule {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Rule::Size => "size",
            Rule::Circle => "circle",
            Rule::Facade => "facade",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Rule> {
        [Rule::Size, Rule::Circle, Rule::Facade]
            .into_iter()
            .find(|rule| rule.name() == name)
    }

    /// The fix people usually make.
    pub(crate) fn fix(self) -> &'static str {
        match self {
            Rule::Size => {
                "split it by what the code does: make it a folder with one file per concept \
                 (the folder's mod.rs declares them), and move its tests to a tests.rs beside them"
            }
            Rule::Circle => {
                "move what the files share down into a module of its own that imports none of them \
                 (the lower file defines, the higher uses), or pass it in as a parameter"
            }
            Rule::Facade => {
                "move the code into a file of its own in this module and re-export it from here \
                 (`pub use part::Thing;`): mod.rs and lib.rs hold declarations and the module's trait"
            }
        }
    }
}

/// Non-test source files over [`MAX_LINES`].
pub(crate) fn sizes(tree: &Tree) -> Vec<Problem> {
    tree.files
        .iter()
        .filter(|file| file.lines > MAX_LINES)
        .map(|file| Problem {
            rule: Rule::Size,
            path: file.path.clone(),
            message: format!(
                "{} has {} lines (at most {MAX_LINES})",
                file.path.display(),
                file.lines
            ),
        })
        .collect()
}

/// Files of one crate target importing each other, directly or around a circle.
pub(crate) fn import_circles(tree: &Tree, edges: &Edges) -> Vec<Problem> {
    let mut problems = Vec::new();
    for group in circles(edges) {
        let Some(&start) = group.first() else {
            continue;
        };
        let circle = shortest_circle(edges, &group, start);
        let package = &tree.targets[tree.files[start].target].package;
        let names: Vec<String> = circle.iter().map(|&id| short(tree, id)).collect();
        let mut message = format!(
            "import circle in {}: {} → {}",
            package.display(),
            names.join(" → "),
            names[0]
        );
        for (at, &from) in circle.iter().enumerate() {
            let to = circle[(at + 1) % circle.len()];
            if let Some(used) = edges.get(&from).and_then(|uses| uses.get(&to)) {
                let path = tree.files[from].path.display();
                message.push_str(&format!("\n    {path}:{} uses {}", used.line, used.written));
            }
        }
        if group.len() > circle.len() {
            let all: Vec<String> = group.iter().map(|&id| short(tree, id)).collect();
            message.push_str(&format!("\n    the whole circle: {}", all.join(", ")));
        }
        problems.push(Problem {
            rule: Rule::Circle,
            path: tree.files[start].path.clone(),
            message,
        });
    }
    problems
}

/// A file's path inside its package, for circle listings.
fn short(tree: &Tree, id: usize) -> String {
    let file = &tree.files[id];
    let package = &tree.targets[file.target].package;
    let inside = file.path.strip_prefix(package).unwrap_or(&file.path);
    inside
        .strip_prefix("src")
        .unwrap_or(inside)
        .display()
        .to_string()
}

/// `mod.rs` and `lib.rs` files holding functions or `impl` blocks.
pub(crate) fn facades(tree: &Tree) -> Vec<Problem> {
    tree.files
        .iter()
        .filter(|file| file.facade && !file.scan.logic.is_empty())
        .map(|file| {
            let items: Vec<String> = file
                .scan
                .logic
                .iter()
                .map(|item| format!("{} (line {})", item.what, item.line))
                .collect();
            Problem {
                rule: Rule::Facade,
                path: file.path.clone(),
                message: format!("{} holds logic: {}", file.path.display(), items.join(", ")),
            }
        })
        .collect()
}
