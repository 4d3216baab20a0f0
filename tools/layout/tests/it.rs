//! The layout check run as a binary over planted trees in temporary directories.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::PathBuf;
use std::process::Command;

/// A fresh workspace under the temp dir with one library package `demo`, removed on drop.
struct Planted(PathBuf);

impl Planted {
    fn new(name: &str) -> Planted {
        let dir = std::env::temp_dir().join(format!("layout-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("crates/demo/src")).unwrap();
        fs::write(
            dir.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/demo\"]\n",
        )
        .unwrap();
        fs::write(
            dir.join("crates/demo/Cargo.toml"),
            "[package]\nname = \"demo\"\n",
        )
        .unwrap();
        Planted(dir)
    }

    fn write(&self, path: &str, text: &str) -> &Planted {
        let path = self.0.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        self
    }

    /// Runs the check; the exit code and what it printed.
    fn check(&self) -> (i32, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_layout"))
            .arg(&self.0)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }
}

impl Drop for Planted {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn lines(n: usize) -> String {
    (0..n)
        .map(|i| format!("pub const C{i}: u32 = {i};\n"))
        .collect()
}

const LIB: &str = "pub mod a;\npub mod b;\n";

#[test]
fn a_clean_tree_passes() {
    let tree = Planted::new("clean");
    tree.write("crates/demo/src/lib.rs", LIB)
        .write("crates/demo/src/a.rs", "pub struct A;\n")
        .write(
            "crates/demo/src/b.rs",
            "use crate::a::A;\npub fn f(_: A) {}\n",
        )
        .write("crates/demo/src/big.rs", &lines(600));
    let (code, out) = tree.check();
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("0 over 600 lines, 0 import circles, 0 mod.rs/lib.rs with logic"),
        "{out}"
    );
}

#[test]
fn a_601_line_file_fails_with_its_size_and_the_usual_fix() {
    let tree = Planted::new("size");
    tree.write(
        "crates/demo/src/lib.rs",
        "pub mod big;\n#[cfg(test)]\nmod tests;\n",
    )
    .write("crates/demo/src/big.rs", &lines(601))
    .write("crates/demo/src/tests.rs", &lines(900));
    let (code, out) = tree.check();
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("crates/demo/src/big.rs has 601 lines (at most 600)"),
        "{out}"
    );
    assert!(out.contains("fix: split it by what the code does"), "{out}");
    assert!(
        !out.contains("src/tests.rs has"),
        "test modules are outside the size rule: {out}"
    );
}

#[test]
fn a_planted_circle_fails_and_names_each_use() {
    let tree = Planted::new("circle");
    tree.write("crates/demo/src/lib.rs", LIB)
        .write(
            "crates/demo/src/a.rs",
            "use crate::b::B;\npub struct A(B);\n",
        )
        .write(
            "crates/demo/src/b.rs",
            "pub struct B;\nfn f() -> super::a::A { todo!() }\n",
        );
    let (code, out) = tree.check();
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("import circle in crates/demo: a.rs → b.rs → a.rs"),
        "{out}"
    );
    assert!(
        out.contains("crates/demo/src/a.rs:1 uses crate::b::B"),
        "{out}"
    );
    assert!(
        out.contains("crates/demo/src/b.rs:2 uses super::a::A"),
        "{out}"
    );
    assert!(out.contains("fix: move what the files share down"), "{out}");
}

#[test]
fn a_circle_hidden_behind_a_facade_reexport_is_found() {
    let tree = Planted::new("facade-circle");
    tree.write(
        "crates/demo/src/lib.rs",
        "mod a;\nmod b;\npub use a::A;\npub use b::B;\n",
    )
    .write("crates/demo/src/a.rs", "pub struct A(pub crate::B);\n")
    .write(
        "crates/demo/src/b.rs",
        "pub struct B;\nimpl B { fn f(_: crate::A) {} }\n",
    );
    let (code, out) = tree.check();
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("a.rs → b.rs → a.rs"), "{out}");
}

#[test]
fn a_parent_declaring_and_reexporting_its_children_is_no_circle() {
    let tree = Planted::new("parent");
    tree.write(
        "crates/demo/src/lib.rs",
        "mod a;\npub use a::A;\npub trait T {}\n",
    )
    .write(
        "crates/demo/src/a.rs",
        "pub struct A;\nimpl crate::T for A {}\n",
    );
    let (code, out) = tree.check();
    assert_eq!(code, 0, "{out}");
}

#[test]
fn logic_in_a_mod_rs_fails_but_the_modules_trait_and_its_defaults_do_not() {
    let tree = Planted::new("facade");
    tree.write("crates/demo/src/lib.rs", "pub mod m;\n").write(
        "crates/demo/src/m/mod.rs",
        "pub trait T { fn d(&self) -> u8 { 1 } }\npub fn helper() {}\n",
    );
    let (code, out) = tree.check();
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("crates/demo/src/m/mod.rs holds logic: fn helper (line 2)"),
        "{out}"
    );
}

#[test]
fn an_allow_list_entry_needs_a_reason_and_silences_its_file() {
    let tree = Planted::new("allow");
    tree.write("crates/demo/src/lib.rs", "pub mod big;\n")
        .write("crates/demo/src/big.rs", &lines(700));
    tree.write("tools/layout/allow.txt", "size crates/demo/src/big.rs\n");
    let (code, _) = tree.check();
    assert_eq!(code, 2, "an entry without a reason is refused");
    tree.write(
        "tools/layout/allow.txt",
        "size crates/demo/src/big.rs -- generated tables\n",
    );
    let (code, out) = tree.check();
    assert_eq!(code, 0, "{out}");
    tree.write("crates/demo/src/big.rs", &lines(10));
    let (code, out) = tree.check();
    assert_eq!(code, 1, "a stale entry fails: {out}");
    assert!(out.contains("matches nothing any more"), "{out}");
}
