//! The command documents itself: `a2a completions SHELL` prints a script the shell loads,
//! `a2a man DIR` writes one man page per command, and `a2a --version` names the commit and the
//! A2A versions served.

use std::path::Path;
use std::process::Command;

use crate::support::{TempFile, run};

fn stdout(args: &[&str]) -> String {
    let output = run(args);
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn completions_are_printed_for_every_shell_and_bash_loads_them() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout(&["completions", shell]);
        assert!(
            script.contains("a2a") && script.contains("print-config") && script.contains("gateway"),
            "{shell}: {script}"
        );
    }
    let script = TempFile::new("a2a.bash", &stdout(&["completions", "bash"]));
    let loaded = Command::new("bash")
        .args([
            "-c",
            &format!("source {} && complete -p a2a", script.path()),
        ])
        .output()
        .unwrap();
    assert!(loaded.status.success(), "{loaded:?}");
    assert!(String::from_utf8_lossy(&loaded.stdout).contains("a2a"));
    // Each shell that is installed reads its script without an error.
    for (shell, file, check) in [
        (
            "zsh",
            "_a2a",
            "autoload -U compinit && compinit -u && source",
        ),
        ("fish", "a2a.fish", "source"),
    ] {
        if Command::new(shell).arg("--version").output().is_err() {
            continue;
        }
        let script = TempFile::new(file, &stdout(&["completions", shell]));
        let loaded = Command::new(shell)
            .args(["-c", &format!("{check} {}", script.path())])
            .output()
            .unwrap();
        assert!(loaded.status.success(), "{shell}: {loaded:?}");
    }

    let output = run(&["completions", "tcsh"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
}

#[test]
fn man_writes_a_page_per_command() {
    let dir = TempFile::new("placeholder", "");
    let pages = dir.path.parent().unwrap().join("man1");
    let listed = stdout(&["man", pages.to_str().unwrap()]);
    for name in [
        "a2a",
        "a2a-serve",
        "a2a-gateway",
        "a2a-send",
        "a2a-agents",
        "a2a-man",
    ] {
        let page = pages.join(format!("{name}.1"));
        assert!(listed.contains(&page.display().to_string()), "{listed}");
        let text = std::fs::read_to_string(&page).unwrap();
        assert!(text.contains(".TH"), "{name}: {text}");
    }
    let serve = std::fs::read_to_string(pages.join("a2a-serve.1")).unwrap();
    assert!(serve.contains("print\\-config"), "{serve}");
    // Nested subcommands get their own pages.
    let nested = std::fs::read_dir(&pages)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with("a2a-agents-")
        })
        .count();
    assert!(nested > 0);
    if let Ok(rendered) = Command::new("man")
        .args(["-l", "-P", "cat"])
        .arg(pages.join("a2a-serve.1"))
        .env("MANWIDTH", "100")
        .output()
        && rendered.status.success()
    {
        let text = String::from_utf8_lossy(&rendered.stdout);
        assert!(
            text.contains("a2a-serve") && text.contains("--max-connections"),
            "{text}"
        );
    }
}

#[test]
fn version_names_the_commit_and_the_protocol_versions() {
    let version = stdout(&["--version"]);
    assert!(version.starts_with("a2a 0.1.0 (commit "), "{version}");
    assert!(version.trim_end().ends_with("; A2A 1.0, 0.3)"), "{version}");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(manifest)
        .output();
    if let Ok(head) = head
        && head.status.success()
    {
        let head = String::from_utf8(head.stdout).unwrap();
        assert!(
            version.contains(&format!("(commit {}; ", &head[..12])),
            "{version} vs {head}"
        );
    }
}
