//! A v1.0 card without the v0.3 members a card serving both versions carries.

use crate::card::AgentCard;

use super::card::LEGACY_CARD_MEMBERS;

/// The v0.3 member of a capability set.
const LEGACY_CAPABILITY_MEMBERS: [&str; 1] = ["stateTransitionHistory"];

/// The v0.3 members of a skill.
const LEGACY_SKILL_MEMBERS: [&str; 1] = ["security"];

/// The members of a v0.3 security scheme (`type`-tagged, flat), which a v1.0 scheme (one
/// member naming its kind) never has at its top level.
const LEGACY_SCHEME_MEMBERS: [&str; 9] = [
    "type",
    "description",
    "in",
    "name",
    "scheme",
    "bearerFormat",
    "flows",
    "openIdConnectUrl",
    "oauth2MetadataUrl",
];

/// The v0.3 member of an interface (v1.0: `protocolBinding`).
const LEGACY_INTERFACE_MEMBERS: [&str; 1] = ["transport"];

/// `card` with none of the v0.3 members [`dual_protocol_card`](super::dual_protocol_card)
/// adds (or a card file written for both versions holds): not at the top level (`url`,
/// `preferredTransport`, `protocolVersion`, `additionalInterfaces`,
/// `supportsAuthenticatedExtendedCard`, `security`), not in `capabilities`
/// (`stateTransitionHistory`), the skills, the security schemes or the interfaces. What a
/// strict v1.0 reader accepts; other unknown members are kept.
#[must_use]
pub fn v1_only_card(card: &AgentCard) -> AgentCard {
    let mut strict = card.clone();
    for key in LEGACY_CARD_MEMBERS {
        strict.extra.shift_remove(key);
    }
    for key in LEGACY_CAPABILITY_MEMBERS {
        strict.capabilities.extra.shift_remove(key);
    }
    for skill in &mut strict.skills {
        for key in LEGACY_SKILL_MEMBERS {
            skill.extra.shift_remove(key);
        }
    }
    for scheme in strict.security_schemes.values_mut() {
        for key in LEGACY_SCHEME_MEMBERS {
            scheme.extra.shift_remove(key);
        }
    }
    for interface in &mut strict.supported_interfaces {
        for key in LEGACY_INTERFACE_MEMBERS {
            interface.extra.shift_remove(key);
        }
    }
    strict
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::{AgentInterface, ProtocolBinding, SecurityScheme};

    #[test]
    fn a_union_card_loses_every_v03_member() {
        let mut card = AgentCard::new("a", "d", "1")
            .with_interface(AgentInterface::new(
                "http://h/a2a",
                ProtocolBinding::JsonRpc,
            ))
            .with_skill(crate::card::AgentSkill::new("s", "S", "skill"));
        card.capabilities.extended_agent_card = Some(true);
        card.capabilities
            .extra
            .insert("stateTransitionHistory".into(), true.into());
        card.security_schemes.insert(
            "key".into(),
            SecurityScheme::api_key(crate::card::ApiKeyLocation::Header, "X-API-Key"),
        );
        let union = super::super::dual_protocol_card(&card);
        let union_json = serde_json::to_value(&union).unwrap();
        assert_eq!(union_json["url"], "http://h/a2a", "{union_json}");
        assert!(union_json["security"].is_array() || union_json.get("security").is_none());
        assert!(union_json["securitySchemes"]["key"].get("type").is_some());

        let strict = serde_json::to_value(v1_only_card(&union)).unwrap();
        for key in LEGACY_CARD_MEMBERS {
            assert!(strict.get(key).is_none(), "{key}: {strict}");
        }
        assert!(
            strict["capabilities"]
                .get("stateTransitionHistory")
                .is_none()
        );
        assert_eq!(strict["capabilities"]["extendedAgentCard"], true);
        let scheme = strict["securitySchemes"]["key"].as_object().unwrap();
        assert_eq!(scheme.keys().collect::<Vec<_>>(), ["apiKeySecurityScheme"]);
        assert!(strict["skills"][0].get("security").is_none());
    }
}
