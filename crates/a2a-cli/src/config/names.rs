//! Every option of `a2a serve` and `a2a gateway` works as a flag, as its `A2A_*` variable and
//! as its TOML key, found by walking clap's command tree (so a new option is covered without
//! a new line here); and the sample files in `docs/` are read by the real loaders.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;

use clap::{Args as _, FromArgMatches as _};

use super::environment::from_environment;
use super::file::from_file;
use super::layers::key_of;
use super::tests::TempFile;
use super::{ConfigError, NOT_SETTINGS, ServeOptions, layered, variable_of};
use crate::Cli;

/// How a sample value is written on the command line and in TOML.
struct Sample {
    flag: String,
    toml: String,
}

/// A value `option` accepts that differs from its default.
fn sample(option: &clap::Arg) -> Sample {
    let value_name = option
        .get_value_names()
        .and_then(|names| names.first())
        .map(ToString::to_string)
        .unwrap_or_default();
    let choices: Vec<String> = option
        .get_possible_values()
        .iter()
        .map(|value| value.get_name().to_owned())
        .collect();
    let (flag, toml) = match value_name.as_str() {
        "BOOL" => ("true".to_owned(), "true".to_owned()),
        "N" | "BYTES" | "BYTES/S" => ("7".to_owned(), "7".to_owned()),
        "MS" | "DURATION" => ("5s".to_owned(), "\"5s\"".to_owned()),
        _ => match choices.last() {
            Some(last) => (last.clone(), format!("\"{last}\"")),
            None => {
                let text = "/tmp/a2a-sample";
                (text.to_owned(), format!("\"{text}\""))
            }
        },
    };
    let is_list = option.get_value_delimiter().is_some()
        || matches!(option.get_action(), clap::ArgAction::Append);
    let toml = if is_list { format!("[{toml}]") } else { toml };
    Sample { flag, toml }
}

fn settings_of(command: &clap::Command) -> Vec<&clap::Arg> {
    command
        .get_arguments()
        .filter(|option| {
            option
                .get_long()
                .is_some_and(|long| !NOT_SETTINGS.contains(&long))
        })
        .collect()
}

fn serve_flags(args: &[String]) -> ServeOptions {
    let command = ServeOptions::augment_args(clap::Command::new("a2a-serve").no_binary_name(true));
    let matches = command.try_get_matches_from(args).unwrap();
    ServeOptions::from_arg_matches(&matches).unwrap()
}

#[test]
fn every_serve_option_is_a_flag_a_variable_and_a_file_key() {
    let command = Cli::command_with_variables();
    let serve = command.find_subcommand("serve").unwrap();
    let options = settings_of(serve);
    assert!(options.len() > 60, "{}", options.len());
    for option in options {
        let long = option.get_long().unwrap();
        let variable = variable_of(long);
        let Sample { flag, toml } = sample(option);
        let by_flag = serve_flags(&[format!("--{long}={flag}")]);
        assert_ne!(by_flag, ServeOptions::default(), "--{long}={flag}");

        let by_variable = from_environment([(OsString::from(&variable), OsString::from(&flag))])
            .unwrap_or_else(|error| panic!("{variable}={flag}: {error}"));
        assert_eq!(by_variable, by_flag, "{variable}={flag}");

        let file = TempFile::new(
            &format!("{long}.toml"),
            &format!("{} = {toml}\n", key_of(long)),
        );
        let by_file = from_file(&file.0).unwrap_or_else(|error| panic!("{toml}: {error}"));
        assert_eq!(by_file, by_flag, "{} = {toml}", key_of(long));

        let help = option
            .get_help()
            .map(ToString::to_string)
            .unwrap_or_default();
        assert!(
            help.contains(&format!("[env: {variable}]")),
            "--{long}: {help}"
        );
    }
}

/// `a2a gateway` parsed from `args` (after `a2a gateway`) with `variables`, as `Debug` text.
fn gateway(args: &[String], variables: &[(&str, &str)]) -> Result<String, clap::Error> {
    let variables: HashMap<String, OsString> = variables
        .iter()
        .map(|(name, value)| ((*name).to_owned(), OsString::from(value)))
        .collect();
    let argv = ["a2a", "gateway"]
        .into_iter()
        .map(OsString::from)
        .chain(args.iter().map(OsString::from))
        .collect();
    Cli::try_parse_with(argv, |name| variables.get(name).cloned()).map(|cli| format!("{cli:?}"))
}

/// Flags an option cannot be given without.
fn companions(long: &str) -> Vec<String> {
    let companion = match long {
        "tls-cert" => "--tls-key=/tmp/key.pem",
        "tls-key" => "--tls-cert=/tmp/cert.pem",
        "issuer" => "--jwks-url=https://issuer.example/jwks",
        _ => return Vec::new(),
    };
    vec![companion.to_owned()]
}

#[test]
fn every_gateway_option_is_a_flag_a_variable_an_older_variable_and_a_file_key() {
    let command = Cli::command_with_variables();
    let gateway_command = command.find_subcommand("gateway").unwrap();
    let options = settings_of(gateway_command);
    assert!(options.len() > 25, "{}", options.len());
    for option in options {
        let long = option.get_long().unwrap();
        let variable = variable_of(long);
        let older = variable.replacen("A2A_", "A2A_GATEWAY_", 1);
        let Sample { flag, toml } = sample(option);
        let base = companions(long);
        let mut args = base.clone();
        args.push(format!("--{long}={flag}"));
        let by_flag = gateway(&args, &[]).unwrap_or_else(|error| panic!("--{long}: {error}"));
        // Without its companion's partner the default cannot be parsed.
        if let Ok(default) = gateway(&base, &[]) {
            assert_ne!(by_flag, default, "--{long}={flag}");
        }

        let by_variable = gateway(&base, &[(&variable, &flag)])
            .unwrap_or_else(|error| panic!("{variable}: {error}"));
        assert_eq!(by_variable, by_flag, "{variable}={flag}");
        let by_older =
            gateway(&base, &[(&older, &flag)]).unwrap_or_else(|error| panic!("{older}: {error}"));
        assert_eq!(by_older, by_flag, "{older}={flag}");

        let file = TempFile::new(
            &format!("gateway-{long}.toml"),
            &format!("{} = {toml}\n", key_of(long)),
        );
        let mut with_file = base.clone();
        with_file.push(format!("--config={}", file.0.display()));
        let by_file = gateway(&with_file, &[])
            .unwrap_or_else(|error| panic!("{} = {toml}: {error}", key_of(long)));
        let mut expected = args.clone();
        expected.push(format!("--config={}", file.0.display()));
        assert_eq!(
            by_file,
            gateway(&expected, &[]).unwrap(),
            "{} = {toml}",
            key_of(long)
        );

        let help = option
            .get_help()
            .map(ToString::to_string)
            .unwrap_or_default();
        assert!(
            help.contains(&format!("[env: {variable}]")),
            "--{long}: {help}"
        );
    }
}

#[test]
fn gateway_sources_rank_flag_variable_older_variable_kubemq_file() {
    let file = TempFile::new("gateway-rank.toml", "max_agents = 1\nagent_ttl = 60000\n");
    let config = format!("--config={}", file.0.display());
    let ttl_of = |args: &[String], variables: &[(&str, &str)]| {
        let text = gateway(args, variables).unwrap();
        let start = text.find("agent_ttl: Millis(").unwrap();
        text[start..].split(')').next().unwrap().to_owned()
    };
    let all = [
        ("A2A_AGENT_TTL", "2s"),
        ("A2A_GATEWAY_AGENT_TTL", "3s"),
        ("KUBEMQ_A2A_AGENT_TTL", "4s"),
    ];
    let flag = vec![config.clone(), "--agent-ttl=1s".to_owned()];
    assert_eq!(ttl_of(&flag, &all), "agent_ttl: Millis(1s");
    let plain = vec![config.clone()];
    assert_eq!(ttl_of(&plain, &all), "agent_ttl: Millis(2s");
    assert_eq!(ttl_of(&plain, &all[1..]), "agent_ttl: Millis(3s");
    assert_eq!(ttl_of(&plain, &all[2..]), "agent_ttl: Millis(4s");
    // A bare number in the file is milliseconds, as on the command line.
    assert_eq!(ttl_of(&plain, &[]), "agent_ttl: Millis(60s");
    // The file is also named by A2A_CONFIG; the flag wins over it.
    let path = file.0.display().to_string();
    assert_eq!(
        ttl_of(&[], &[("A2A_CONFIG", &path)]),
        "agent_ttl: Millis(60s"
    );
    let by_flag = vec![config, "--max-agents=2".to_owned()];
    let text = gateway(&by_flag, &[("A2A_CONFIG", "/nonexistent/gateway.toml")]).unwrap();
    assert!(text.contains("max_agents: 2"), "{text}");
}

#[test]
fn gateway_files_and_variables_with_bad_content_are_refused_naming_their_source() {
    let file = TempFile::new(
        "gateway-unknown.toml",
        "bind = \"127.0.0.1:0\"\n\nagent_tll = \"5m\"\n",
    );
    let error = gateway(&[format!("--config={}", file.0.display())], &[]).unwrap_err();
    let text = crate::error::clap_first_line(&error);
    assert!(text.contains("unknown key `agent_tll`"), "{text}");
    assert!(text.contains("line 3"), "{text}");
    assert!(text.contains(&file.0.display().to_string()), "{text}");

    let file = TempFile::new("gateway-bad.toml", "agent_ttl = \"soon\"\n");
    let error = gateway(&[format!("--config={}", file.0.display())], &[]).unwrap_err();
    let text = crate::error::clap_first_line(&error);
    assert!(text.contains("key agent_ttl"), "{text}");
    assert!(text.contains("not a duration"), "{text}");

    let file = TempFile::new("gateway-shape.toml", "[registry]\nstore = \"x\"\n");
    let error = gateway(&[format!("--config={}", file.0.display())], &[]).unwrap_err();
    assert!(crate::error::clap_first_line(&error).contains("`registry`"));

    let error = gateway(&[], &[("A2A_MAX_AGENTS", "many")]).unwrap_err();
    let text = crate::error::clap_first_line(&error);
    assert!(
        text.contains("environment variable A2A_MAX_AGENTS"),
        "{text}"
    );

    let error = gateway(&[], &[("A2A_CONFIG", "/nonexistent/gateway.toml")]).unwrap_err();
    let text = crate::error::clap_first_line(&error);
    assert!(
        text.contains("cannot read config file /nonexistent/gateway.toml"),
        "{text}"
    );
}

#[test]
fn serve_files_with_unknown_keys_are_refused_naming_the_key_and_the_file() {
    let file = TempFile::new(
        "serve-unknown.toml",
        "bind = \"127.0.0.1:0\"\nmax_tasks = 4\n",
    );
    let error = from_file(&file.0).unwrap_err();
    assert!(matches!(error, ConfigError::ParseFile { .. }));
    let text = error.to_string();
    assert!(text.contains("unknown key `max_tasks`"), "{text}");
    assert!(text.contains("line 2"), "{text}");
    assert!(!text.contains("bind"), "{text}");
    assert!(text.contains(&file.0.display().to_string()), "{text}");
}

/// The sample file at `docs/NAME`, with every `# key = value` line of a setting uncommented:
/// when `defaults`, only those of a plain default (lines with a comment after the value stay
/// comments then).
fn sample_file(name: &str, keys: &[String], defaults: bool) -> (String, TempFile) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{name}: {error}"));
    for key in keys {
        let written = text.lines().any(|line| {
            line.strip_prefix("# ")
                .and_then(|line| line.strip_prefix(key.as_str()))
                .is_some_and(|rest| rest.starts_with(" = "))
        });
        assert!(written, "docs/{name} does not describe `{key}`");
    }
    let uncommented: String = text
        .lines()
        .map(|line| {
            let setting = line.strip_prefix("# ").filter(|rest| {
                keys.iter().any(|key| {
                    rest.strip_prefix(key.as_str())
                        .is_some_and(|rest| rest.starts_with(" = "))
                })
            });
            match setting {
                Some(setting) if !(defaults && setting.contains("  # ")) => {
                    format!("{setting}\n")
                }
                _ => format!("{line}\n"),
            }
        })
        .collect();
    let file = TempFile::new(&format!("uncommented-{name}"), &uncommented);
    (text, file)
}

#[test]
fn the_serve_sample_file_describes_every_option_with_its_true_default() {
    let command = Cli::command_with_variables();
    let keys: Vec<String> = settings_of(command.find_subcommand("serve").unwrap())
        .into_iter()
        .filter_map(|option| option.get_long().map(key_of))
        .collect();
    let (_, every) = sample_file("serve.toml", &keys, false);
    from_file(&every.0).unwrap_or_else(|error| panic!("docs/serve.toml: {error}"));
    let (_, defaults) = sample_file("serve.toml", &keys, true);
    let none: Vec<(OsString, OsString)> = Vec::new();
    let documented = super::load(
        ServeOptions::default(),
        Some(defaults.0.clone()),
        none.clone(),
    )
    .unwrap_or_else(|error| panic!("docs/serve.toml: {error}"));
    let built_in = super::load(ServeOptions::default(), None, none).unwrap();
    assert_eq!(format!("{documented:?}"), format!("{built_in:?}"));
}

#[test]
fn the_gateway_sample_file_describes_every_option_with_its_true_default() {
    let command = Cli::command_with_variables();
    let gateway_command = command.find_subcommand("gateway").unwrap();
    let keys: Vec<String> = settings_of(gateway_command)
        .into_iter()
        .filter_map(|option| option.get_long().map(key_of))
        .collect();
    let (_, every) = sample_file("gateway.toml", &keys, false);
    layered(
        vec![
            "a2a".into(),
            "gateway".into(),
            format!("--config={}", every.0.display()).into(),
        ],
        gateway_command,
        |_| None,
    )
    .unwrap_or_else(|error| panic!("docs/gateway.toml: {error}"));
    let (_, defaults) = sample_file("gateway.toml", &keys, true);
    let config = format!("--config={}", defaults.0.display());
    let documented =
        gateway(&[config], &[]).unwrap_or_else(|error| panic!("docs/gateway.toml: {error}"));
    let plain = gateway(&[], &[]).unwrap();
    // The documented defaults are the built-in ones; only the file's path differs.
    let path = format!("{:?}", Some(defaults.0.clone()));
    assert_eq!(documented.replace(&path, "None"), plain);
}
