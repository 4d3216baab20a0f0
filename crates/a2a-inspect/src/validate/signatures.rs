//! `signatures`: each JWS signature's members and its protected header.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

use super::checker::Checker;
use super::checker::{field, member};
use super::members::SIGNATURE_MEMBERS;
impl Checker {
    pub(super) fn signatures(&mut self, value: &Value) {
        let name = "signatures";
        let Some(signatures) = self.array(value, name) else {
            return;
        };
        for (index, signature) in signatures.iter().enumerate() {
            let path = format!("{name}[{index}]");
            let Some(signature) = self.object(signature, &path) else {
                continue;
            };
            self.members(
                signature,
                &path,
                "AgentCardSignature",
                SIGNATURE_MEMBERS,
                &[],
            );
            if let Some(protected) = self.required_string(
                signature,
                &path,
                "protected",
                "protected is REQUIRED: the base64url-encoded protected JWS header.",
            ) {
                self.protected_header(&member(&path, "protected"), protected);
            }
            if let Some(value) = self.required_string(
                signature,
                &path,
                "signature",
                "signature is REQUIRED: the base64url-encoded JWS signature.",
            ) && URL_SAFE_NO_PAD.decode(value.trim_end_matches('=')).is_err()
            {
                self.error(
                    &member(&path, "signature"),
                    "signature is the base64url encoding of the signature bytes; this is not base64url.",
                );
            }
            if let Some(header) = field(signature, "header") {
                self.object(header, &member(&path, "header"));
            }
        }
    }

    pub(super) fn protected_header(&mut self, path: &str, encoded: &str) {
        let header = URL_SAFE_NO_PAD
            .decode(encoded.trim_end_matches('='))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
        let Some(Value::Object(header)) = header else {
            self.error(
                path,
                "protected is the base64url encoding of the protected JWS header, a JSON object; this does not decode to one.",
            );
            return;
        };
        match header.get("alg").and_then(Value::as_str) {
            None => self.error(
                path,
                "The protected header MUST contain alg, the signing algorithm (for example ES256 or RS256).",
            ),
            Some(alg) if alg.eq_ignore_ascii_case("none") => self.error(
                path,
                "The protected header's alg is none: an unsigned signature cannot be verified.",
            ),
            Some(_) => {}
        }
        if header.get("kid").and_then(Value::as_str).is_none() {
            self.error(
                path,
                "The protected header MUST contain kid, the id of the key that signed, so verifiers can find it.",
            );
        }
        match header.get("typ").and_then(Value::as_str) {
            None => self.warning(
                path,
                "The protected header should contain typ, and it SHOULD be JOSE.",
            ),
            Some("JOSE") => {}
            Some(typ) => self.info(path, format!("typ SHOULD be JOSE; it is {typ:?}.")),
        }
    }
}
