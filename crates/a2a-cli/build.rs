//! Records the git commit the binary is built from, for `a2a --version`: from
//! `.cargo_vcs_info.json` in a packaged crate (what `cargo install a2a-cli` builds), else from
//! `git` in a checkout, else `unknown`. Reruns when the checkout's HEAD moves.

// A build script speaks to Cargo on its standard output.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_owned()));
    let commit = packaged_commit(&manifest)
        .or_else(|| checkout_commit(&manifest))
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=A2A_GIT_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
}

/// The commit `cargo package` wrote into the crate it packed.
fn packaged_commit(manifest: &Path) -> Option<String> {
    let path = manifest.join(".cargo_vcs_info.json");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path).ok()?;
    // {"git": {"sha1": "…"}, "path_in_vcs": "…"}: one member, read without a JSON parser.
    let rest = &text[text.find("\"sha1\"")? + "\"sha1\"".len()..];
    let start = rest.find('"')? + 1;
    let length = rest[start..].find('"')?;
    Some(short(&rest[start..start + length]))
}

/// The checkout's HEAD, when the crate's directory is in the repository's work tree.
fn checkout_commit(manifest: &Path) -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let output = Command::new("git")
            .args(args)
            .current_dir(manifest)
            .output()
            .ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    // Only this crate's own repository: not one that happens to hold the directory.
    let top = PathBuf::from(git(&["rev-parse", "--show-toplevel"])?);
    if !manifest.starts_with(&top) {
        return None;
    }
    let commit = git(&["rev-parse", "HEAD"])?;
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={git_dir}/HEAD");
        if let (Some(reference), Some(common)) = (
            git(&["symbolic-ref", "-q", "HEAD"]),
            git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]),
        ) {
            println!("cargo:rerun-if-changed={common}/{reference}");
            println!("cargo:rerun-if-changed={common}/packed-refs");
        }
    }
    Some(short(&commit))
}

/// The first twelve hex digits of a commit id.
fn short(commit: &str) -> String {
    commit.chars().take(12).collect()
}
