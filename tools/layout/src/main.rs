//! `layout [ROOT]`: checks the workspace at ROOT (default: the enclosing workspace) against the
//! repository's layout rules and exits non-zero when one is broken.
//!
//! The rules: no non-test source file over 600 lines; no files of one crate importing each
//! other directly or around a circle; `mod.rs` and `lib.rs` hold declarations and the module's
//! own trait, no functions or `impl` blocks. Exceptions live in `tools/layout/allow.txt`, each
//! with its reason.

mod allow;
mod graph;
mod lex;
mod rules;
mod scan;
mod tree;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where the allow list lives, from the workspace root.
const ALLOW_LIST: &str = "tools/layout/allow.txt";

const HELP: &str = "usage: layout [ROOT]

Checks every package below ROOT (default: the enclosing Cargo workspace) against the layout
rules: no non-test source file over 600 lines, no import circle between the files of one crate,
no functions or impl blocks in a mod.rs or lib.rs. Exceptions: tools/layout/allow.txt, one
`<size|circle|facade> <path> -- <reason>` a line. Exit status 1 when a rule is broken.";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let root = match args.next() {
        Some(flag) if flag == "-h" || flag == "--help" => {
            let _ = writeln!(std::io::stdout(), "{HELP}");
            return ExitCode::SUCCESS;
        }
        Some(root) => PathBuf::from(root),
        None => match workspace_root() {
            Some(root) => root,
            None => return fail("no Cargo workspace here or above; name the root: layout ROOT"),
        },
    };
    match check(&root) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => fail(&message),
    }
}

fn fail(message: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "layout: {message}");
    ExitCode::from(2)
}

/// The nearest directory at or above the current one whose Cargo.toml is a workspace.
fn workspace_root() -> Option<PathBuf> {
    let here = std::env::current_dir().ok()?;
    here.ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml")).is_ok_and(|t| t.contains("[workspace]"))
        })
        .map(Path::to_path_buf)
}

/// Runs the rules over `root`, prints what breaks them; true when nothing does.
fn check(root: &Path) -> Result<bool, String> {
    let tree = tree::read(root).map_err(|e| format!("reading {}: {e}", root.display()))?;
    let allow_text = match std::fs::read_to_string(root.join(ALLOW_LIST)) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("reading {ALLOW_LIST}: {e}")),
    };
    let entries = allow::parse(&allow_text)?;
    let edges = graph::edges(&tree);
    let mut problems = rules::sizes(&tree);
    problems.extend(rules::import_circles(&tree, &edges));
    problems.extend(rules::facades(&tree));
    let (left, unused) = allow::apply(problems, &entries);
    let mut out = std::io::stdout().lock();
    for problem in &left {
        let _ = writeln!(
            out,
            "{}: {}\n  fix: {}\n",
            problem.rule.name(),
            problem.message,
            problem.rule.fix()
        );
    }
    for entry in &unused {
        let _ = writeln!(
            out,
            "allow list: line {} ({} {}) matches nothing any more; delete it\n",
            entry.line,
            entry.rule.name(),
            entry.path.display()
        );
    }
    let count = |rule| left.iter().filter(|p| p.rule == rule).count();
    let _ = writeln!(
        out,
        "layout: {} files in {} crate targets; {} over {} lines, {} import circles, {} mod.rs/lib.rs with logic",
        tree.files.len(),
        tree.targets.len(),
        count(rules::Rule::Size),
        rules::MAX_LINES,
        count(rules::Rule::Circle),
        count(rules::Rule::Facade),
    );
    Ok(left.is_empty() && unused.is_empty())
}
