//! The golden fixtures' layout, as the wire tests of `a2a-types` and `a2a-grpc` read it: one
//! directory per type, holding that type's JSON documents.

use std::path::{Path, PathBuf};

/// `(type directory, file)` for every JSON file one level below `root`, in path order.
///
/// # Panics
/// When `root` or one of its directories cannot be read: a test without its fixtures must
/// fail, not pass having checked nothing.
#[must_use]
pub fn json_files_by_type(root: &Path) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    for dir in entries(root) {
        if !dir.is_dir() {
            continue;
        }
        let type_name = dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        for file in entries(&dir) {
            if file.extension().is_some_and(|ext| ext == "json") {
                found.push((type_name.clone(), file));
            }
        }
    }
    found.sort();
    found
}

/// The paths of the entries of directory `dir`.
fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .and_then(|entries| {
            entries
                .map(|entry| entry.map(|entry| entry.path()))
                .collect()
        })
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", dir.display()))
}
