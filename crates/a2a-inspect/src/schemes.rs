//! What a card's security schemes ask for: the API-key header, the names secrets travel
//! under, and the words for a person.

use serde_json::Value;

/// The security schemes of a card (v1.0 or v0.3 JSON), each as `(kind, detail)`.
fn schemes_of(card: &Value) -> Vec<(String, Value)> {
    let Some(schemes) = card.get("securitySchemes").and_then(Value::as_object) else {
        return Vec::new();
    };
    schemes
        .values()
        .filter_map(|scheme| {
            let object = scheme.as_object()?;
            if let Some(kind) = object.get("type").and_then(Value::as_str) {
                return Some((kind.to_owned(), scheme.clone()));
            }
            let (name, detail) = object.iter().next()?;
            let kind = match name.as_str() {
                "apiKeySecurityScheme" => "apiKey",
                "httpAuthSecurityScheme" => "http",
                "oauth2SecurityScheme" => "oauth2",
                "openIdConnectSecurityScheme" => "openIdConnect",
                "mtlsSecurityScheme" => "mutualTLS",
                other => other,
            };
            Some((kind.to_owned(), detail.clone()))
        })
        .collect()
}

/// The header of the card's first API-key scheme in a header.
pub(crate) fn card_api_key_header(card: Option<&Value>) -> Option<String> {
    schemes_of(card?).into_iter().find_map(|(kind, detail)| {
        let location = detail
            .get("location")
            .or_else(|| detail.get("in"))
            .and_then(Value::as_str)
            .unwrap_or("header");
        (kind == "apiKey" && location.eq_ignore_ascii_case("header"))
            .then(|| {
                detail
                    .get("name")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .flatten()
    })
}

/// Header, query and cookie names the card's API-key schemes put secrets in.
pub(crate) fn secret_names(card: &Value) -> Vec<String> {
    schemes_of(card)
        .into_iter()
        .filter(|(kind, _)| kind == "apiKey")
        .filter_map(|(_, detail)| {
            detail
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect()
}

/// What the card's security asks for, in words: "an API key in header X-API-Key".
pub(crate) fn describe_schemes(card: Option<&Value>) -> String {
    let Some(card) = card else {
        return String::new();
    };
    let words: Vec<String> = schemes_of(card)
        .into_iter()
        .map(|(kind, detail)| match kind.as_str() {
            "apiKey" => format!(
                "the card asks for an API key in {} {}",
                detail
                    .get("location")
                    .or_else(|| detail.get("in"))
                    .and_then(Value::as_str)
                    .unwrap_or("header"),
                detail.get("name").and_then(Value::as_str).unwrap_or("?")
            ),
            "http" => format!(
                "the card asks for HTTP {} authentication",
                detail
                    .get("scheme")
                    .and_then(Value::as_str)
                    .unwrap_or("bearer")
            ),
            "oauth2" => "the card asks for an OAuth 2.0 token".to_owned(),
            "openIdConnect" => "the card asks for an OpenID Connect token".to_owned(),
            "mutualTLS" => "the card asks for a client certificate".to_owned(),
            other => format!("the card names a {other} scheme"),
        })
        .collect();
    words.join("; ")
}
