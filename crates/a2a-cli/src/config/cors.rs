//! The CORS setting of `a2a serve`, checked: off, on for any origin, or on for the
//! origins listed.

use a2a_server::cors::CorsConfig;

use super::ConfigError;
use super::options::ServeOptions;

/// `--cors` and `--cors-origins` as the server's CORS configuration; `None` when off.
/// Listing origins turns CORS on unless `--cors=false` says otherwise. The API-key header
/// is allowed by the server itself, from the card's schemes.
pub(super) fn cors(options: &ServeOptions) -> Result<Option<CorsConfig>, ConfigError> {
    let on = match options.cors {
        Some(on) => on,
        None => options.cors_origins.is_some(),
    };
    if !on {
        return Ok(None);
    }
    let mut cors = CorsConfig::default();
    if let Some(origins) = &options.cors_origins {
        let mut listed = Vec::new();
        for origin in origins.iter().map(|origin| origin.trim()) {
            if origin.is_empty() {
                continue;
            }
            let Some(origin) = as_origin(origin) else {
                return Err(ConfigError::Invalid {
                    option: "cors-origins",
                    message: format!(
                        "`{origin}` is not an origin (scheme://host[:port], e.g. \
                         https://app.example) or *"
                    ),
                });
            };
            listed.push(origin);
        }
        if listed.is_empty() {
            return Err(ConfigError::Invalid {
                option: "cors-origins",
                message: "names no origin (use * for any)".to_owned(),
            });
        }
        cors.allow_origins = listed;
    }
    Ok(Some(cors))
}

/// `*`, or the origin a URL of only a scheme, a host and maybe a port names, as browsers
/// send it in `Origin` (lower-case host, no default port).
fn as_origin(text: &str) -> Option<String> {
    if text == "*" {
        return Some(text.to_owned());
    }
    let url = url::Url::parse(text).ok()?;
    let bare = url.host().is_some()
        && url.path() == "/"
        && url.query().is_none()
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none();
    bare.then(|| url.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origins(list: &[&str]) -> ServeOptions {
        ServeOptions {
            cors_origins: Some(list.iter().map(|origin| (*origin).to_owned()).collect()),
            ..ServeOptions::default()
        }
    }

    #[test]
    fn listed_origins_turn_cors_on_for_those_origins_only() {
        assert_eq!(cors(&ServeOptions::default()).unwrap(), None);
        let on = ServeOptions {
            cors: Some(true),
            ..ServeOptions::default()
        };
        assert_eq!(cors(&on).unwrap().unwrap().allow_origins, ["*"]);
        let listed = cors(&origins(&["https://a.example", " http://b.example:8080/ "]))
            .unwrap()
            .unwrap();
        assert_eq!(
            listed.allow_origins,
            ["https://a.example", "http://b.example:8080"]
        );
        let off = ServeOptions {
            cors: Some(false),
            ..origins(&["https://a.example"])
        };
        assert_eq!(cors(&off).unwrap(), None);
        for bad in [&[""][..], &["https://a.example/path"], &["a.example"]] {
            assert!(cors(&origins(bad)).is_err(), "{bad:?}");
        }
    }
}
