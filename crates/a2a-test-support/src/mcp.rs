//! The tests' own MCP server, `a2a-test-mcp` (`src/bin/a2a-test-mcp.rs`), for the MCP tool
//! source's tests in other crates, which cannot name another package's binary.
//!
//! ```no_run
//! let server = a2a_test_support::mcp::server_binary();
//! let root = tempfile::tempdir().unwrap();
//! let _child = std::process::Command::new(server)
//!     .arg("--root")
//!     .arg(root.path())
//!     .spawn();
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The binary's name.
pub const SERVER: &str = "a2a-test-mcp";

/// The built `a2a-test-mcp`, next to the running test executable (`target/debug/deps/..`),
/// built with `cargo build -p a2a-test-support --bin a2a-test-mcp` first when it is not
/// there (once per test process). `A2A_TEST_MCP` names another binary.
///
/// A binary already there is used as it is, even when older than its source; `cargo build
/// -p a2a-test-support` (or `cargo test --workspace`) refreshes it.
///
/// # Panics
/// When the binary is missing and cannot be built.
#[must_use]
pub fn server_binary() -> PathBuf {
    static BUILT: Mutex<Option<PathBuf>> = Mutex::new(None);
    if let Some(path) = std::env::var_os("A2A_TEST_MCP") {
        return PathBuf::from(path);
    }
    let mut built = BUILT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(path) = built.as_ref() {
        return path.clone();
    }
    let exe = std::env::current_exe().unwrap_or_default();
    // target/<profile>/deps/<test> → target/<profile>
    let profile_dir = exe
        .parent()
        .filter(|dir| dir.file_name().is_some_and(|name| name == "deps"))
        .and_then(Path::parent)
        .map_or_else(|| workspace_root().join("target/debug"), Path::to_path_buf);
    let binary = profile_dir.join(format!("{SERVER}{}", std::env::consts::EXE_SUFFIX));
    if !binary.is_file() {
        build(&profile_dir);
    }
    assert!(
        binary.is_file(),
        "{} is missing after building it",
        binary.display()
    );
    *built = Some(binary.clone());
    binary
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn build(profile_dir: &Path) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(workspace_root()).args([
        "build",
        "--quiet",
        "-p",
        "a2a-test-support",
        "--bin",
        SERVER,
    ]);
    if let Some(target_dir) = profile_dir.parent() {
        command.arg("--target-dir").arg(target_dir);
    }
    if profile_dir
        .file_name()
        .is_some_and(|name| name == "release")
    {
        command.arg("--release");
    }
    eprintln!("building {SERVER} for the MCP tests");
    let status = command.status();
    assert!(
        status.as_ref().is_ok_and(std::process::ExitStatus::success),
        "could not build {SERVER}: {status:?}"
    );
}
