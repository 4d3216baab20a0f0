//! Where a gRPC interface is: `host:port` as the proto says, or an `http(s)://host:port` URL
//! as the spec's sample card writes it; both are kept as an http(s) URL of the address.

use crate::ClientError;

/// The URL of the gRPC address `text`: an `https://` URL is TLS, an `http://` one plaintext
/// HTTP/2 (h2c), and a bare `host[:port]` is TLS unless `plaintext` says otherwise. Any path
/// is dropped: gRPC methods live at fixed paths (`/lf.a2a.v1.A2AService/…`).
///
/// # Errors
/// [`ClientError::Config`] for an empty address, another scheme, or no host.
pub(crate) fn grpc_url(text: &str, plaintext: bool) -> Result<url::Url, ClientError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ClientError::config("the gRPC interface has no address"));
    }
    let full = if text.contains("://") {
        text.to_owned()
    } else if plaintext {
        format!("http://{text}")
    } else {
        format!("https://{text}")
    };
    let mut url = url::Url::parse(&full)
        .map_err(|error| ClientError::config(format!("invalid gRPC address {text:?}: {error}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(ClientError::config(format!(
            "the gRPC address {text:?} must be host:port or an http(s) URL"
        )));
    }
    url.set_path("/");
    url.set_query(None);
    url.set_fragment(None);
    Ok(url)
}

/// Keeps credentials on the host the card came from: a gRPC interface is served on a port of
/// its own, so the port stays the interface's, but the host becomes the card source's, and
/// TLS is kept when the card came over TLS.
pub(crate) fn bind_to_card_host(
    address: &mut url::Url,
    source: &url::Url,
) -> Result<(), ClientError> {
    let port = address.port_or_known_default();
    if source.scheme() == "https" && address.scheme() == "http" {
        // `set_scheme` keeps a port that is the old scheme's default; set it again below.
        address
            .set_scheme("https")
            .map_err(|()| ClientError::config("the gRPC address cannot use TLS"))?;
    }
    address
        .set_host(source.host_str())
        .map_err(|error| ClientError::config(format!("invalid card host: {error}")))?;
    address
        .set_port(port)
        .map_err(|()| ClientError::config("the gRPC address cannot take a port"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_host_port_or_http_urls() {
        let cases = [
            ("grpc.example:443", false, "https://grpc.example/"),
            ("grpc.example:8443", false, "https://grpc.example:8443/"),
            ("127.0.0.1:50051", true, "http://127.0.0.1:50051/"),
            ("[::1]:50051", false, "https://[::1]:50051/"),
            ("http://127.0.0.1:50051", false, "http://127.0.0.1:50051/"),
            (
                "https://grpc.example:9443/a2a?x=1",
                true,
                "https://grpc.example:9443/",
            ),
        ];
        for (text, plaintext, expected) in cases {
            assert_eq!(
                grpc_url(text, plaintext).unwrap().as_str(),
                expected,
                "{text}"
            );
        }
        for bad in ["", "ftp://grpc.example:21", "unix:///tmp/socket"] {
            assert!(
                matches!(grpc_url(bad, false), Err(ClientError::Config { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn credentials_stay_on_the_card_host_with_the_interface_port() {
        let source = url::Url::parse("https://public.example/.well-known/agent-card.json").unwrap();
        let mut address = grpc_url("http://internal:50051", false).unwrap();
        bind_to_card_host(&mut address, &source).unwrap();
        assert_eq!(address.as_str(), "https://public.example:50051/");
        let source = url::Url::parse("http://127.0.0.1:8080/").unwrap();
        let mut address = grpc_url("elsewhere.example:443", false).unwrap();
        bind_to_card_host(&mut address, &source).unwrap();
        assert_eq!(address.as_str(), "https://127.0.0.1/");
    }
}
