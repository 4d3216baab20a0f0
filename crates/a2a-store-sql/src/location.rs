//! Database URLs: which backend they name, their connect options, and how to show them
//! without their password.

use std::str::FromStr;

use sqlx::postgres::PgConnectOptions;
use sqlx::sqlite::SqliteConnectOptions;

use crate::error::SqlStoreError;

/// Where a store's data lives.
#[derive(Debug)]
pub(crate) enum Location {
    /// A SQLite file, or a database in this process's memory.
    Sqlite {
        options: SqliteConnectOptions,
        in_memory: bool,
    },
    /// A PostgreSQL server.
    Postgres(PgConnectOptions),
}

impl Location {
    /// Parses `url`: `sqlite://PATH`, `sqlite:PATH`, `sqlite::memory:`, `postgres://…` or
    /// `postgresql://…`.
    pub(crate) fn parse(url: &str) -> Result<Self, SqlStoreError> {
        let invalid = |reason: String| SqlStoreError::InvalidUrl {
            url: redact(url),
            reason,
        };
        let scheme = url.split_once(':').map(|(scheme, _)| scheme);
        match scheme {
            Some("sqlite") => {
                let path = url
                    .trim_start_matches("sqlite://")
                    .trim_start_matches("sqlite:");
                if path.is_empty() || path.starts_with('?') {
                    return Err(invalid("no file path".to_owned()));
                }
                // sqlx's parser does not report why, and its message could quote the URL.
                let options = SqliteConnectOptions::from_str(url)
                    .map_err(|_| invalid("not a SQLite URL".to_owned()))?;
                let in_memory = path.starts_with(":memory:") || url.contains("mode=memory");
                Ok(Self::Sqlite {
                    options: options.create_if_missing(true),
                    in_memory,
                })
            }
            Some("postgres" | "postgresql") => {
                let parsed = url::Url::parse(url)
                    .map_err(|error| invalid(format!("not a URL ({error})")))?;
                let options = PgConnectOptions::from_str(parsed.as_str())
                    .map_err(|_| invalid("not a PostgreSQL URL".to_owned()))?;
                Ok(Self::Postgres(options))
            }
            _ => Err(invalid(
                "expected sqlite://PATH, sqlite::memory:, postgres://… or postgresql://…"
                    .to_owned(),
            )),
        }
    }
}

/// `url` with its password, in the user-info part or a `password` query parameter,
/// replaced by `***`, for error messages and logs.
pub(crate) fn redact(url: &str) -> String {
    if let Ok(mut parsed) = url::Url::parse(url)
        && parsed.has_host()
    {
        if parsed.password().is_some() && parsed.set_password(Some("***")).is_err() {
            return redact_by_hand(url);
        }
        let has_password_parameter = parsed
            .query_pairs()
            .any(|(key, _)| key.eq_ignore_ascii_case("password"));
        if has_password_parameter {
            let pairs: Vec<(String, String)> = parsed
                .query_pairs()
                .map(|(key, value)| {
                    let value = if key.eq_ignore_ascii_case("password") {
                        "***".to_owned()
                    } else {
                        value.into_owned()
                    };
                    (key.into_owned(), value)
                })
                .collect();
            parsed.query_pairs_mut().clear().extend_pairs(pairs);
        }
        return parsed.to_string();
    }
    redact_by_hand(url)
}

/// The fallback for text that is not a URL: everything between the first `:` after `://`
/// and the last `@` is a password as far as we can tell, and any query is dropped.
fn redact_by_hand(url: &str) -> String {
    let url = url.split_once('?').map_or(url, |(before, _)| before);
    let Some((scheme, rest)) = url.split_once("://") else {
        // `sqlite:PATH` carries no password; anything else unknown is not shown at all.
        return if url.starts_with("sqlite:") {
            url.to_owned()
        } else {
            "<unparseable url>".to_owned()
        };
    };
    match rest.rsplit_once('@') {
        Some((user_info, host)) => {
            let user = user_info
                .split_once(':')
                .map_or(user_info, |(user, _)| user);
            format!("{scheme}://{user}:***@{host}")
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_hides_passwords_and_keeps_the_rest() {
        let cases = [
            (
                "postgres://alice:s3cret@db.example.com:5432/tasks",
                "postgres://alice:***@db.example.com:5432/tasks",
            ),
            (
                "postgres://alice@db.example.com/tasks",
                "postgres://alice@db.example.com/tasks",
            ),
            (
                "postgresql://db/tasks?user=bob&password=s3cret",
                "postgresql://db/tasks?user=bob&password=***",
            ),
            ("sqlite://tasks.db", "sqlite://tasks.db"),
            ("sqlite::memory:", "sqlite::memory:"),
            // Not a URL: a `/` in the password and a space in the host.
            (
                "postgres://alice:se/c ret@db host/tasks",
                "postgres://alice:***@db host/tasks",
            ),
        ];
        for (url, expected) in cases {
            assert_eq!(redact(url), expected, "{url}");
            assert!(!redact(url).contains("s3cret"), "{url}");
        }
    }

    #[test]
    fn urls_name_their_backend() {
        assert!(matches!(
            Location::parse("sqlite::memory:"),
            Ok(Location::Sqlite {
                in_memory: true,
                ..
            })
        ));
        assert!(matches!(
            Location::parse("sqlite://target/x.db"),
            Ok(Location::Sqlite {
                in_memory: false,
                ..
            })
        ));
        assert!(matches!(
            Location::parse("sqlite:x.db"),
            Ok(Location::Sqlite { .. })
        ));
        assert!(matches!(
            Location::parse("postgres://u@localhost/test"),
            Ok(Location::Postgres(_))
        ));
        assert!(matches!(
            Location::parse("postgresql://u@localhost/test"),
            Ok(Location::Postgres(_))
        ));
    }

    #[test]
    fn bad_urls_are_refused_without_their_password() {
        for url in [
            "mysql://root:s3cret@localhost/test",
            "sqlite://",
            "s3cret",
            "postgres://alice:s3cret@[::1/tasks",
        ] {
            match Location::parse(url) {
                Err(error @ SqlStoreError::InvalidUrl { .. }) => {
                    let text = error.to_string();
                    assert!(!text.contains("s3cret"), "{text}");
                }
                other => panic!("{url}: {other:?}"),
            }
        }
    }
}
