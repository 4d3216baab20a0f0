//! Protobuf values that have no a2a-types form, and the field each error names.

use a2a_grpc::convert::ConvertError;
use a2a_grpc::proto;
use a2a_types::{A2aError, ErrorKind};

fn text_part(text: &str) -> proto::Part {
    proto::Part {
        content: Some(proto::part::Content::Text(text.into())),
        ..Default::default()
    }
}

fn user_message() -> proto::Message {
    proto::Message {
        message_id: "m-1".into(),
        role: proto::Role::User.into(),
        parts: vec![text_part("hi")],
        ..Default::default()
    }
}

fn send(message: proto::Message) -> Result<a2a_types::SendMessageRequest, ConvertError> {
    a2a_types::SendMessageRequest::try_from(proto::SendMessageRequest {
        message: Some(message),
        ..Default::default()
    })
}

fn task_with_state(state: i32) -> proto::Task {
    proto::Task {
        id: "t-1".into(),
        status: Some(proto::TaskStatus {
            state,
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[test]
fn a_valid_request_is_accepted() {
    let request = send(user_message()).unwrap();
    assert_eq!(request.message.text(), "hi");
}

#[test]
fn a_part_without_content_is_refused() {
    let mut message = user_message();
    message.parts.push(proto::Part::default());
    let err = send(message).unwrap_err();
    assert_eq!(err.path(), "message.parts[1].content");
    assert!(err.reason().contains("text, raw, url, data"), "{err}");
}

#[test]
fn a_message_without_id_role_or_parts_is_refused() {
    type Break = fn(&mut proto::Message);
    let cases: [(Break, &str); 3] = [
        (|m| m.message_id.clear(), "message.message_id"),
        (|m| m.role = proto::Role::Unspecified.into(), "message.role"),
        (|m| m.parts.clear(), "message.parts"),
    ];
    for (break_it, path) in cases {
        let mut message = user_message();
        break_it(&mut message);
        let err = send(message).unwrap_err();
        assert_eq!(err.path(), path, "{err}");
        assert_eq!(err.reason(), "is required");
    }
}

#[test]
fn an_unknown_role_reads_as_unspecified_and_an_unknown_task_state_is_refused() {
    let mut message = user_message();
    message.role = 3;
    let err = send(message).unwrap_err();
    assert_eq!(err.path(), "message.role");
    assert_eq!(err.reason(), "is required");

    let err = a2a_types::Task::try_from(task_with_state(9)).unwrap_err();
    assert_eq!(err.path(), "status.state");
    assert!(err.reason().contains("unknown TaskState number 9"), "{err}");

    let request = a2a_types::ListTasksRequest::try_from(proto::ListTasksRequest {
        status: -1,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(request.status, a2a_types::TaskState::Unspecified);
}

#[test]
fn an_unspecified_state_is_refused_in_a_status_but_is_no_filter_in_list_tasks() {
    let err = a2a_types::Task::try_from(task_with_state(0)).unwrap_err();
    assert_eq!(err.path(), "status.state");
    let request = a2a_types::ListTasksRequest::try_from(proto::ListTasksRequest::default());
    assert_eq!(request.unwrap().status, a2a_types::TaskState::Unspecified);
}

#[test]
fn a_task_without_id_or_status_is_refused() {
    let mut task = task_with_state(proto::TaskState::Working.into());
    task.id.clear();
    assert_eq!(a2a_types::Task::try_from(task).unwrap_err().path(), "id");
    let mut task = task_with_state(proto::TaskState::Working.into());
    task.status = None;
    assert_eq!(
        a2a_types::Task::try_from(task).unwrap_err().path(),
        "status"
    );
}

#[test]
fn errors_deep_in_a_stream_name_the_whole_path() {
    let mut task = task_with_state(proto::TaskState::Working.into());
    let mut broken = user_message();
    broken.parts[0].content = None;
    task.history = vec![user_message(), broken];
    let response = proto::StreamResponse {
        payload: Some(proto::stream_response::Payload::Task(task)),
    };
    let err = a2a_types::StreamResponse::try_from(response).unwrap_err();
    assert_eq!(err.path(), "task.history[1].parts[0].content");
}

#[test]
fn a_bad_timestamp_is_refused_naming_the_field() {
    let mut task = task_with_state(proto::TaskState::Working.into());
    task.status.as_mut().unwrap().timestamp = Some(prost_types::Timestamp {
        seconds: 0,
        nanos: -5,
    });
    let err = a2a_types::Task::try_from(task).unwrap_err();
    assert_eq!(err.path(), "status.timestamp.nanos");
}

#[test]
fn oneofs_with_no_member_are_refused() {
    let err = a2a_types::StreamResponse::try_from(proto::StreamResponse::default()).unwrap_err();
    assert_eq!(err.path(), "payload");
    let err = a2a_types::SendMessageResponse::try_from(proto::SendMessageResponse::default())
        .unwrap_err();
    assert_eq!(err.path(), "payload");
    let err = a2a_types::card::OAuthFlows::try_from(proto::OAuthFlows::default()).unwrap_err();
    assert_eq!(err.path(), "flow");
}

#[test]
fn card_errors_name_the_scheme_by_key() {
    let mut card = proto::AgentCard {
        name: "agent".into(),
        description: "does things".into(),
        version: "1.0.0".into(),
        capabilities: Some(proto::AgentCapabilities::default()),
        ..Default::default()
    };
    card.security_schemes.insert(
        "key".into(),
        proto::SecurityScheme {
            scheme: Some(proto::security_scheme::Scheme::ApiKeySecurityScheme(
                proto::ApiKeySecurityScheme {
                    location: "body".into(),
                    name: "X-Key".into(),
                    ..Default::default()
                },
            )),
        },
    );
    card.security_schemes
        .insert("empty".into(), proto::SecurityScheme::default());
    // Keys are converted in name order, so the empty scheme is found first.
    let err = a2a_types::AgentCard::try_from(card.clone()).unwrap_err();
    assert_eq!(err.path(), "security_schemes[\"empty\"].scheme");
    card.security_schemes.remove("empty");
    let err = a2a_types::AgentCard::try_from(card.clone()).unwrap_err();
    assert_eq!(
        err.path(),
        "security_schemes[\"key\"].api_key_security_scheme.location"
    );
    card.capabilities = None;
    assert_eq!(
        a2a_types::AgentCard::try_from(card).unwrap_err().path(),
        "capabilities"
    );
}

#[test]
fn a_push_config_without_url_is_refused() {
    let err = a2a_types::TaskPushNotificationConfig::try_from(
        proto::TaskPushNotificationConfig::default(),
    )
    .unwrap_err();
    assert_eq!(err.path(), "url");
}

#[test]
fn a_convert_error_is_invalid_params_with_a_field_violation() {
    let err = send(proto::Message::default()).unwrap_err();
    assert_eq!(err.to_string(), "message.role: is required");
    let a2a = A2aError::from(err);
    assert_eq!(a2a.kind(), ErrorKind::InvalidParams);
    let violation = &a2a.field_violations()[0];
    assert_eq!(violation.field, "message.role");
    assert_eq!(violation.description, "is required");
}

#[test]
fn a_convert_error_is_small() {
    assert!(std::mem::size_of::<ConvertError>() <= 48);
    assert!(
        std::mem::size_of::<Result<a2a_types::TaskState, ConvertError>>() <= 16,
        "a Result carrying it stays a pointer wide"
    );
}
