//! The official JS SDK (`@a2a-js/sdk` 0.3.14) for the v0.3 interop tests: `node`, and the
//! package installed by `npm ci` in `tests/interop/js03` (made by `bash .ci/run`).
//!
//! A test that needs it asks [`sdk_03`]: without it, the test prints a notice and passes,
//! except under `CI=true`, where it fails.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::is_ci;
use crate::python::workspace_root;

/// Where the v0.3 JS driver and its `package-lock.json` live, under the workspace root.
pub const JS03_DIR: &str = "tests/interop/js03";

/// How to install it.
const SETUP: &str = "bash .ci/run (or by hand: npm ci --prefix tests/interop/js03)";

/// The `node` program (`A2A_NODE`, else `node` on the `PATH`) and the directory with the
/// installed v0.3 SDK, or `None` (after a notice on stderr) to skip the test.
///
/// # Panics
/// When either is missing and [`is_ci`].
#[must_use]
pub fn sdk_03() -> Option<(PathBuf, PathBuf)> {
    let node = std::env::var_os("A2A_NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from);
    let dir = workspace_root().join(JS03_DIR);
    let runs = Command::new(&node)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    let installed = dir.join("node_modules/@a2a-js/sdk/package.json").is_file();
    if runs && installed {
        return Some((node, dir));
    }
    let missing = if runs {
        format!(
            "the JS SDK is not installed in {}; install it with {SETUP}",
            dir.display()
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
