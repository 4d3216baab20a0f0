//! What publishing asks of every crate under `crates/` (found by scanning, so a new crate is
//! covered without a line here): a publishable crate inherits the workspace's version,
//! license, repository and `rust-version`, has its own description, keywords, categories and
//! README, gives every path dependency a version (`cargo package` needs one), and its root
//! docs list its feature flags and the other crates; dev-only crates say `publish = false`.
//! `.ci/run` packs them all with `cargo package --workspace --no-verify`.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};

/// Crates that only the workspace's own tests use.
const DEV_ONLY: [&str; 1] = ["a2a-test-support"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read_toml(path: &Path) -> toml::Table {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{path:?}: {error}"));
    toml::from_str(&text).unwrap_or_else(|error| panic!("{path:?}: {error}"))
}

fn inherits(package: &toml::Table, key: &str) -> bool {
    package
        .get(key)
        .and_then(toml::Value::as_table)
        .and_then(|table| table.get("workspace"))
        .and_then(toml::Value::as_bool)
        == Some(true)
}

/// Every `crates/*/Cargo.toml`, with its directory.
fn crates() -> Vec<(PathBuf, toml::Table)> {
    let mut found: Vec<(PathBuf, toml::Table)> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|dir| dir.join("Cargo.toml").is_file())
        .map(|dir| {
            let manifest = read_toml(&dir.join("Cargo.toml"));
            (dir, manifest)
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

#[test]
fn the_workspace_gives_every_crate_its_license_repository_and_toolchain() {
    let manifest = read_toml(&root().join("Cargo.toml"));
    let package = manifest["workspace"]["package"].as_table().unwrap();
    assert_eq!(package["license"].as_str(), Some("Apache-2.0"));
    for key in [
        "version",
        "edition",
        "rust-version",
        "repository",
        "homepage",
    ] {
        assert!(
            package.get(key).is_some(),
            "[workspace.package] has no {key}"
        );
    }
    assert!(
        package.get("publish").is_none(),
        "publish is decided per crate, not for the workspace"
    );
    let license = std::fs::read_to_string(root().join("LICENSE")).unwrap();
    assert!(
        license.contains("Apache License\n                           Version 2.0, January 2004")
    );
    assert!(license.contains("END OF TERMS AND CONDITIONS"));
    for file in [
        "README.md",
        "CHANGELOG.md",
        "CONTRIBUTING.md",
        "SECURITY.md",
    ] {
        assert!(root().join(file).is_file(), "no {file}");
    }

    // Path dependencies of the workspace carry exactly the workspace's version, which `cargo
    // package` writes into the published manifests; not the dev-only ones, which packaging
    // drops from dev-dependencies.
    let version = package["version"].as_str().unwrap();
    let dependencies = manifest["workspace"]["dependencies"].as_table().unwrap();
    for (name, dependency) in dependencies {
        let Some(dependency) = dependency.as_table() else {
            continue;
        };
        if dependency.get("path").is_none() {
            continue;
        }
        let expected = (!DEV_ONLY.contains(&name.as_str())).then(|| format!("={version}"));
        assert_eq!(
            dependency.get("version").and_then(toml::Value::as_str),
            expected.as_deref(),
            "workspace dependency {name}: exactly the workspace's version"
        );
    }
}

#[test]
fn every_crate_is_publishable_or_says_it_is_not() {
    let crates = crates();
    assert!(crates.len() >= 12, "{}", crates.len());
    for (dir, manifest) in crates {
        let package = manifest["package"].as_table().unwrap();
        let name = package["name"].as_str().unwrap();
        if DEV_ONLY.contains(&name) {
            assert_eq!(
                package.get("publish").and_then(toml::Value::as_bool),
                Some(false),
                "{name}"
            );
            continue;
        }
        assert!(package.get("publish").is_none(), "{name} must publish");
        for key in [
            "version",
            "edition",
            "rust-version",
            "license",
            "repository",
            "homepage",
        ] {
            assert!(inherits(package, key), "{name}: {key}.workspace = true");
        }
        let description = package["description"].as_str().unwrap_or_default();
        assert!(!description.is_empty(), "{name}: description");
        let keywords = package.get("keywords").and_then(toml::Value::as_array);
        assert!(
            keywords.is_some_and(|list| (1..=5).contains(&list.len()))
                || inherits(package, "keywords"),
            "{name}: one to five keywords"
        );
        let categories = package.get("categories").and_then(toml::Value::as_array);
        assert!(
            categories.is_some_and(|list| !list.is_empty()) || inherits(package, "categories"),
            "{name}: categories"
        );
        assert_eq!(
            package.get("readme").and_then(toml::Value::as_str),
            Some("README.md"),
            "{name}"
        );
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
        assert!(
            readme.starts_with(&format!("# {name}\n")),
            "{name}: README.md"
        );

        // A normal or build dependency by path needs a version, or inherits the workspace's.
        for section in ["dependencies", "build-dependencies"] {
            let Some(dependencies) = manifest.get(section).and_then(toml::Value::as_table) else {
                continue;
            };
            for (dependency, spec) in dependencies {
                if let Some(spec) = spec.as_table() {
                    assert!(
                        spec.get("path").is_none() || spec.get("version").is_some(),
                        "{name}: {section}.{dependency} by path without a version"
                    );
                    assert!(
                        !DEV_ONLY.contains(&dependency.as_str()),
                        "{name} depends on the dev-only {dependency}"
                    );
                }
            }
        }

        // The root docs, as docs.rs shows them.
        let lib = dir.join("src/lib.rs");
        let docs = std::fs::read_to_string(&lib).unwrap_or_default();
        let header: String = docs
            .lines()
            .take_while(|line| line.starts_with("//!"))
            .map(|line| format!("{line}\n"))
            .collect();
        assert!(
            header.contains("//! # Feature flags\n"),
            "{name}: feature flags"
        );
        assert!(
            header.contains("//! # The a2a crates\n"),
            "{name}: the other crates"
        );
        assert!(header.contains("//! ```"), "{name}: an example");
        if let Some(features) = manifest.get("features").and_then(toml::Value::as_table) {
            for feature in features.keys().filter(|feature| *feature != "default") {
                assert!(
                    header.contains(&format!("`{feature}`")),
                    "{name}: feature {feature}"
                );
            }
        }
    }
}

#[test]
fn the_other_workspace_members_are_not_published() {
    for member in ["examples", "tests/e2e", "bench"] {
        let manifest = read_toml(&root().join(member).join("Cargo.toml"));
        assert_eq!(
            manifest["package"]["publish"].as_bool(),
            Some(false),
            "{member}"
        );
    }
}
