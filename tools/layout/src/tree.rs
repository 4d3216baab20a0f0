//! The crates under the workspace root and the module tree of each crate target.

use std::fs;
use std::path::{Path, PathBuf};

use crate::scan::{Scan, scan};

/// One source file reached from a crate target's root through `mod` declarations.
#[derive(Debug)]
pub(crate) struct SourceFile {
    /// The path from the workspace root.
    pub(crate) path: PathBuf,
    /// Its module path inside the target (`[]` for the root).
    pub(crate) module: Vec<String>,
    /// The crate target (library, binary, example) it belongs to.
    pub(crate) target: usize,
    /// A `mod.rs` or `lib.rs`: the rules let it hold declarations only.
    pub(crate) facade: bool,
    pub(crate) lines: usize,
    pub(crate) scan: Scan,
}

/// A crate target (library, binary, example, build script) of a package.
#[derive(Debug)]
pub(crate) struct Target {
    /// The package directory, from the workspace root.
    pub(crate) package: PathBuf,
}

/// Every non-test source file of every package below `root`, with the targets they form.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    pub(crate) targets: Vec<Target>,
    pub(crate) files: Vec<SourceFile>,
}

/// Directories never searched for packages.
const SKIPPED: [&str; 4] = ["target", "node_modules", ".git", "vendor"];

/// Finds the packages below `root` and walks each target's modules.
pub(crate) fn read(root: &Path) -> std::io::Result<Tree> {
    let mut packages = Vec::new();
    find_packages(root, &mut packages)?;
    packages.sort();
    let mut tree = Tree::default();
    for package in packages {
        for target_root in target_roots(&package)? {
            let target = tree.targets.len();
            tree.targets.push(Target {
                package: relative(root, &package),
            });
            walk(root, &target_root, &[], target, true, &mut tree)?;
        }
    }
    Ok(tree)
}

fn relative(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root)
        .map_or_else(|_| path.to_path_buf(), Path::to_path_buf)
}

fn find_packages(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let manifest = dir.join("Cargo.toml");
    if manifest.is_file() && fs::read_to_string(&manifest)?.contains("[package]") {
        out.push(dir.to_path_buf());
    }
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if entry.file_type()?.is_dir()
            && !name.starts_with('.')
            && !SKIPPED.contains(&name.as_ref())
        {
            find_packages(&entry.path(), out)?;
        }
    }
    Ok(())
}

/// The roots Cargo finds by itself: the library, the main binary, `src/bin/*`, `examples/*`
/// and the build script. Integration tests and benches are test code, outside the rules.
fn target_roots(package: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut roots: Vec<PathBuf> = ["src/lib.rs", "src/main.rs", "build.rs"]
        .iter()
        .map(|name| package.join(name))
        .filter(|path| path.is_file())
        .collect();
    for dir in ["src/bin", "examples"] {
        let dir = package.join(dir);
        if !dir.is_dir() {
            continue;
        }
        let mut found = Vec::new();
        for entry in fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            } else if path.join("main.rs").is_file() {
                found.push(path.join("main.rs"));
            }
        }
        found.sort();
        roots.extend(found);
    }
    Ok(roots)
}

/// Reads `file` as module `module` of `target`, then the modules it declares.
fn walk(
    root: &Path,
    file: &Path,
    module: &[String],
    target: usize,
    is_root: bool,
    tree: &mut Tree,
) -> std::io::Result<()> {
    let source = fs::read_to_string(file)?;
    let scanned = scan(&source);
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let owns_dir = is_root || name == "mod.rs" || name == "lib.rs" || name == "main.rs";
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let children = if owns_dir {
        dir.clone()
    } else {
        dir.join(file.file_stem().unwrap_or_default())
    };
    let decls = scanned.mods.clone();
    tree.files.push(SourceFile {
        path: relative(root, file),
        module: module.to_vec(),
        target,
        facade: name == "mod.rs" || name == "lib.rs",
        lines: source.lines().count(),
        scan: scanned,
    });
    for decl in decls {
        let mut base = children.clone();
        for inline in &decl.scope {
            base.push(inline);
        }
        let found = match &decl.path {
            Some(path) if decl.scope.is_empty() => Some(dir.join(path)),
            Some(path) => Some(base.join(path)),
            None => [
                base.join(format!("{}.rs", decl.name)),
                base.join(&decl.name).join("mod.rs"),
            ]
            .into_iter()
            .find(|p| p.is_file()),
        };
        let mut child = module.to_vec();
        child.extend(decl.scope.iter().cloned());
        child.push(decl.name.clone());
        // A declared module with no file does not compile; the compiler reports it, not this check.
        if let Some(path) = found.filter(|p| p.is_file()) {
            walk(root, &path, &child, target, false, tree)?;
        }
    }
    Ok(())
}
