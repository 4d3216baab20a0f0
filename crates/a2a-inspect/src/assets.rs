//! The page's files, embedded in the binary: every file of `crates/a2a-inspect/assets/`
//! is in [`ASSETS`] (the build script lists the directory, so adding a file there is
//! all it takes), served at `/assets/{file}`, and `index.html` at `/`.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// `(file name, content type, bytes)` of each file under `assets/`.
pub static ASSETS: &[(&str, &str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// The embedded file `name`, with its content type.
pub fn asset(name: &str) -> Option<(&'static str, &'static [u8])> {
    ASSETS
        .iter()
        .find(|(file, _, _)| *file == name)
        .map(|(_, kind, bytes)| (*kind, *bytes))
}

fn serve(name: &str) -> Response {
    match asset(name) {
        Some((kind, bytes)) => {
            let mut response = bytes.into_response();
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            response
        }
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

/// `GET /`.
pub(crate) async fn index() -> Response {
    serve("index.html")
}

/// `GET /assets/{file}`.
pub(crate) async fn file(Path(name): Path<String>) -> Response {
    serve(&name)
}
