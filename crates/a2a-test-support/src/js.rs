//! The official JS SDK for the interop tests: `node`, and `@a2a-js/sdk` installed by
//! `npm ci` in its driver's directory (made by `bash .ci/run`): 1.3.0 (A2A v1.0) in
//! `tests/interop/js`, 0.3.14 (A2A v0.3) in `tests/interop/js03`.
//!
//! A test that needs one asks [`sdk`] or [`sdk_03`]: without it, the test prints a notice
//! and passes, except under `CI=true`, where it fails.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::ci::is_ci;
use crate::python::workspace_root;

/// Where the v1.0 JS driver and its `package-lock.json` live, under the workspace root.
pub const JS_DIR: &str = "tests/interop/js";

/// Where the v0.3 JS driver and its `package-lock.json` live, under the workspace root.
pub const JS03_DIR: &str = "tests/interop/js03";

/// The `node` program (`A2A_NODE`, else `node` on the `PATH`) and the directory with the
/// installed v1.0 SDK, or `None` (after a notice on stderr) to skip the test.
///
/// # Panics
/// When either is missing and [`is_ci`].
#[must_use]
pub fn sdk() -> Option<(PathBuf, PathBuf)> {
    installed(JS_DIR)
}

/// The `node` program and the directory with the installed v0.3 SDK, as [`sdk`].
///
/// # Panics
/// When either is missing and [`is_ci`].
#[must_use]
pub fn sdk_03() -> Option<(PathBuf, PathBuf)> {
    installed(JS03_DIR)
}

/// `node` and `dir` (under the workspace root) when node runs and the SDK is installed there.
fn installed(dir: &str) -> Option<(PathBuf, PathBuf)> {
    let node = std::env::var_os("A2A_NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from);
    let path = workspace_root().join(dir);
    let runs = Command::new(&node)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    let installed = path.join("node_modules/@a2a-js/sdk/package.json").is_file();
    if runs && installed {
        return Some((node, path));
    }
    let missing = if runs {
        format!(
            "the JS SDK is not installed in {}; install it with bash .ci/run \
             (or by hand: npm ci --prefix {dir})",
            path.display()
        )
    } else {
        format!(
            "`{}` does not run; install Node.js 20 or set A2A_NODE",
            node.display()
        )
    };
    assert!(!is_ci(), "CI=true and {missing}");
    eprintln!("skipping the JS SDK interop test: {missing}");
    None
}
