//! The command's process: finding the program, and its process group, which is killed as a
//! whole (the command may have started children of its own).

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::error::UsageError;

/// The exec agent's program does not exist or is not executable (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("command `{program}` not found or not executable")]
pub(crate) struct CommandNotFound {
    program: String,
}

impl From<CommandNotFound> for UsageError {
    fn from(error: CommandNotFound) -> Self {
        Self::from_error(error)
    }
}

/// The program's path: as given when it names a path, else the first match on `PATH`.
pub(crate) fn find_program(program: &str) -> Result<PathBuf, CommandNotFound> {
    let executable = |path: &Path| {
        path.metadata()
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    let found = if program.contains('/') {
        Some(PathBuf::from(program)).filter(|path| executable(path))
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(program))
                .find(|path| executable(path))
        })
    };
    found.ok_or_else(|| CommandNotFound {
        program: program.to_owned(),
    })
}

/// The process group a command leads (spawned with `process_group(0)`); killed on drop, so
/// an abandoned turn cannot leave the command running.
#[derive(Debug)]
pub(super) struct ProcessGroup(Option<Pid>);

impl ProcessGroup {
    /// The group `child` leads.
    pub(super) fn of(child: &tokio::process::Child) -> Self {
        Self(
            child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .map(Pid::from_raw),
        )
    }

    /// Sends SIGKILL to every process of the group. The command had its chance to finish;
    /// a cancel must take effect now, not when the command decides to honour SIGTERM.
    pub(super) fn kill(&self) {
        if let Some(group) = self.0 {
            // ESRCH (the group is already gone) is the normal case after a clean exit.
            let _ = killpg(group, Signal::SIGKILL);
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_on_the_path_or_by_their_path() {
        assert!(find_program("sh").is_ok());
        assert!(find_program("/bin/sh").is_ok());
        assert!(find_program("no-such-program-a2a").is_err());
        // A directory or a plain file is not a program.
        assert!(find_program("/tmp").is_err());
        let error = find_program("./no-such-program").unwrap_err();
        assert_eq!(
            error.to_string(),
            "command `./no-such-program` not found or not executable"
        );
    }
}
