//! Encode/decode throughput of the wire model: a typical task (20 history messages,
//! 5 artifacts) and a full agent card.
//!
//! Run with `cargo bench -p a2a-types --bench serde`; criterion prints time and throughput
//! (bytes of JSON per second) for each case. Not part of CI.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use a2a_types::card::{
    AgentProvider, AuthorizationCodeOAuthFlow, HttpAuthSecurityScheme, OAuth2SecurityScheme,
    OAuthFlows, SecurityRequirement, SecuritySchemeKind,
};
use a2a_types::{
    AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Artifact, Message, Part,
    ProtocolBinding, Role, Task, TaskState,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn typical_task() -> Task {
    let mut task = Task::new("task-1".into(), "ctx-1".into(), TaskState::Working);
    for turn in 0..20 {
        let role = if turn % 2 == 0 {
            Role::User
        } else {
            Role::Agent
        };
        let mut message = Message::new(
            role,
            vec![
                Part::text(format!(
                    "turn {turn}: please summarise the quarterly report"
                )),
                Part::data(serde_json::json!({"turn": turn, "tokens": 512, "tags": ["a", "b"]})),
            ],
        )
        .with_context_id("ctx-1")
        .with_task_id("task-1");
        message.metadata = Some(serde_json::Map::from_iter([(
            "trace".to_owned(),
            serde_json::json!(format!("trace-{turn}")),
        )]));
        task.history.push(message);
    }
    for index in 0..5 {
        task.artifacts.push(
            Artifact::new(vec![
                Part::text("# Summary\n".repeat(20)),
                Part::raw(vec![7u8; 256]).with_media_type("application/octet-stream"),
            ])
            .with_name(format!("artifact-{index}")),
        );
    }
    task
}

fn full_card() -> AgentCard {
    let mut card = AgentCard::new("Report Agent", "Summarises reports.", "1.2.0")
        .with_interface(AgentInterface::new(
            "https://agent.example.com/a2a",
            ProtocolBinding::JsonRpc,
        ))
        .with_interface(AgentInterface::new(
            "https://agent.example.com/rest",
            ProtocolBinding::HttpJson,
        ));
    card.provider = Some(AgentProvider {
        url: "https://example.com".into(),
        organization: "Example".into(),
    });
    card.capabilities = AgentCapabilities {
        streaming: Some(true),
        push_notifications: Some(true),
        ..AgentCapabilities::default()
    };
    card.default_input_modes = vec!["text/plain".into(), "application/json".into()];
    card.default_output_modes = vec!["text/plain".into()];
    card.security_schemes.insert(
        "bearer".into(),
        SecuritySchemeKind::HttpAuth(HttpAuthSecurityScheme {
            description: String::new(),
            scheme: "Bearer".into(),
            bearer_format: "JWT".into(),
        })
        .into(),
    );
    card.security_schemes.insert(
        "oauth".into(),
        SecuritySchemeKind::OAuth2(OAuth2SecurityScheme {
            description: "OAuth".into(),
            flows: OAuthFlows::AuthorizationCode(AuthorizationCodeOAuthFlow {
                authorization_url: "https://idp.example.com/authorize".into(),
                token_url: "https://idp.example.com/token".into(),
                refresh_url: String::new(),
                scopes: [("read".to_owned(), "Read".to_owned())]
                    .into_iter()
                    .collect(),
                pkce_required: true,
            }),
            oauth2_metadata_url: String::new(),
        })
        .into(),
    );
    card.security_requirements = vec![
        SecurityRequirement::scheme("bearer", Vec::<String>::new()),
        SecurityRequirement::scheme("oauth", ["read"]),
    ];
    for index in 0..8 {
        let mut skill = AgentSkill::new(
            format!("skill-{index}"),
            "Summarise",
            "Summarises a document",
        );
        skill.tags = vec!["summary".into(), "report".into()];
        skill.examples = vec!["Summarise this PDF".into()];
        card = card.with_skill(skill);
    }
    card
}

fn bench_case<T>(c: &mut Criterion, name: &str, value: &T)
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let bytes = serde_json::to_vec(value).unwrap();
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("encode", |b| {
        b.iter(|| serde_json::to_vec(black_box(value)).unwrap())
    });
    group.bench_function("decode", |b| {
        b.iter(|| serde_json::from_slice::<T>(black_box(&bytes)).unwrap());
    });
    group.bench_function("decode_with_paths", |b| {
        b.iter(|| a2a_types::json::from_slice::<T>(black_box(&bytes)).unwrap());
    });
    group.finish();
    eprintln!("{name}: {} bytes of JSON", bytes.len());
}

fn benches(c: &mut Criterion) {
    bench_case(c, "task_20_history_5_artifacts", &typical_task());
    bench_case(c, "agent_card", &full_card());
}

criterion_group!(serde_benches, benches);
criterion_main!(serde_benches);
