//! Readings of the server under soak: its resident memory and open descriptors from
//! `/proc`, and the size of its task store from a shell command.

use std::process::Command;

/// `VmRSS` of process `pid`, in KiB.
pub(crate) fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// How many descriptors process `pid` has open (the entries of `/proc/PID/fd`).
pub(crate) fn open_fds(pid: u32) -> Option<u64> {
    let entries = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
    Some(entries.count() as u64)
}

/// The number `sh -c command` prints (the store's size in bytes), when it succeeds.
pub(crate) fn store_bytes(command: &str) -> Option<u64> {
    let output = Command::new("sh").arg("-c").arg(command).output().ok()?;
    if !output.status.success() {
        return None;
    }
    String::from_utf8_lossy(&output.stdout).trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_process() {
        let pid = std::process::id();
        assert!(rss_kib(pid).is_some_and(|kib| kib > 0));
        assert!(open_fds(pid).is_some_and(|fds| fds >= 3));
        assert_eq!(store_bytes("echo 42"), Some(42));
        assert_eq!(store_bytes("exit 1"), None);
    }
}
