//! The checks of single options: protocol switches, the card source, positive and nonzero values.

use std::time::Duration;

use a2a_server::ServerConfig;
use a2a_server::config::{CrossOwner, ProtocolVersions};

use crate::config::ConfigError;
use crate::config::options::{CrossOwnerAnswer, ServeOptions};

/// The switches for the places where the A2A spec and the products it grew from disagree:
/// the spec's reading by default, each product's behaviour on request.
pub(super) fn protocol_choices(
    options: &ServeOptions,
    server: &mut ServerConfig,
) -> Result<(), ConfigError> {
    if let Some(profile) = &options.rest_status_profile {
        server.rest_status_profile = profile.parse().map_err(|_| {
            invalid(
                "rest-status-profile",
                format!("unknown profile `{profile}`; expected spec, camel or rfc7807-java"),
            )
        })?;
    }
    if let Some(on) = options.strict_extensions {
        server.strict_extensions = on;
    }
    if let Some(answer) = options.cross_owner {
        server.cross_owner = match answer {
            CrossOwnerAnswer::NotFound => CrossOwner::NotFound,
            CrossOwnerAnswer::Forbidden => CrossOwner::Forbidden,
        };
    }
    if let Some(on) = options.idempotent_cancel {
        server.idempotent_cancel = on;
    }
    if let Some(on) = options.lenient_message_id {
        server.lenient_message_id = on;
    }
    if let Some(version) = &options.assume_version {
        let version = version.trim();
        let served = version.split('.').next() == Some("1")
            && version.split('.').all(|part| part.parse::<u32>().is_ok());
        if !served {
            return Err(invalid(
                "assume-version",
                format!("`{version}` is not a version this server speaks; expected 1.0"),
            ));
        }
        server.assume_version_when_absent = Some(version.to_owned());
    }
    if let Some(versions) = &options.protocol_versions {
        server.protocol_versions = ProtocolVersions::parse(versions)
            .map_err(|message| invalid("protocol-versions", message))?;
    }
    if let Some(on) = options.subscribe_ends_on_interrupt {
        server.subscribe_ends_on_interrupt = on;
    }
    if let Some(key) = &options.page_token_key {
        let key = key.expose().as_bytes();
        if key.len() < MIN_PAGE_TOKEN_KEY_BYTES {
            // The length only: the key itself is a secret.
            return Err(invalid(
                "page-token-key",
                format!(
                    "must be at least {MIN_PAGE_TOKEN_KEY_BYTES} bytes, got {}",
                    key.len()
                ),
            ));
        }
        server.page_token_key = Some(key.to_vec());
    }
    Ok(())
}

/// A shorter page-token key could be guessed, and with it tokens forged.
pub(super) const MIN_PAGE_TOKEN_KEY_BYTES: usize = 16;

pub(super) fn invalid(option: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        option,
        message: message.into(),
    }
}

/// At most one of the card's sources, and a card URL that is one.
pub(super) fn card_source(options: &ServeOptions) -> Result<(), ConfigError> {
    let given = [
        options.card.is_some(),
        options.card_url.is_some(),
        options.card_json.is_some(),
    ];
    if given.into_iter().filter(|given| *given).count() > 1 {
        let option = if options.card_json.is_some() {
            "card-json"
        } else {
            "card-url"
        };
        return Err(invalid(
            option,
            "give one card source: --card, --card-url or --card-json",
        ));
    }
    if let Some(url) = &options.card_url {
        a2a_client::card_url(url, None).map_err(|_| {
            invalid(
                "card-url",
                "must be an absolute http:// or https:// URL".to_owned(),
            )
        })?;
    }
    Ok(())
}

pub(super) fn positive(option: &'static str, duration: Duration) -> Result<Duration, ConfigError> {
    if duration.is_zero() {
        Err(invalid(option, "must be more than 0"))
    } else {
        Ok(duration)
    }
}

pub(super) fn nonzero(option: &'static str, value: usize) -> Result<usize, ConfigError> {
    if value == 0 {
        Err(invalid(option, "must be more than 0"))
    } else {
        Ok(value)
    }
}
