//! Embeds every file of `assets/` in the binary: writes `assets.rs` in `OUT_DIR`, a table
//! of `(file name, content type, include_bytes!(…))`, so a new page file needs no code
//! change. Cargo reruns this when anything under `assets/` changes.

// A build script speaks to Cargo on its standard output.
#![allow(clippy::print_stdout)]

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_owned());
    let assets = Path::new(&manifest).join("assets");
    println!("cargo:rerun-if-changed={}", assets.display());
    let mut names: Vec<String> = std::fs::read_dir(&assets)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
                .filter_map(|entry| entry.file_name().into_string().ok())
                .filter(|name| !name.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut table = String::from("&[\n");
    for name in &names {
        let path = assets.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        let _ = writeln!(
            table,
            "    ({name:?}, {:?}, include_bytes!({:?})),",
            content_type(name),
            path.display().to_string()
        );
    }
    table.push(']');
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".to_owned());
    if let Err(error) = std::fs::write(Path::new(&out).join("assets.rs"), table) {
        panic!("cannot write the asset table: {error}");
    }
}

/// The content type of a file, by its extension.
fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, extension)| extension) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("json") => "application/json",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
