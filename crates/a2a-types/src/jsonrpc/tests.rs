//! Envelope and method-name tests.

use serde_json::{Value, json};

use super::*;
use crate::error::{A2aError, ErrorKind};

fn request_text(id: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"GetTask","params":{{"id":"t1"}}}}"#)
}

#[test]
fn request_ids_of_every_json_type_round_trip_to_the_same_text() {
    for id in [
        r#""r-1""#,
        "7",
        "7.0",
        "-3",
        "1.5",
        "18446744073709551615",
        "null",
    ] {
        let text = request_text(id);
        let request: JsonRpcRequest = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&request).unwrap(), text, "{id}");
    }
}

#[test]
fn an_absent_id_stays_absent_and_a_null_id_stays_null() {
    let text = r#"{"jsonrpc":"2.0","method":"GetTask"}"#;
    let notification: JsonRpcRequest = serde_json::from_str(text).unwrap();
    assert!(notification.is_notification());
    assert_eq!(serde_json::to_string(&notification).unwrap(), text);

    let null: JsonRpcRequest = serde_json::from_str(&request_text("null")).unwrap();
    assert_eq!(null.id, Some(RequestId::Null));
    assert!(!null.is_notification());
}

#[test]
fn string_and_number_ids_are_distinct() {
    let string: JsonRpcRequest = serde_json::from_str(&request_text(r#""7""#)).unwrap();
    let number: JsonRpcRequest = serde_json::from_str(&request_text("7")).unwrap();
    assert_eq!(string.id, Some(RequestId::from("7")));
    assert_eq!(number.id, Some(RequestId::from(7_i64)));
    assert_ne!(string.id, number.id);
    assert_eq!(number.id.unwrap().to_string(), "7");
}

#[test]
fn a_boolean_array_or_object_id_is_an_error_naming_id() {
    for id in ["true", "[1]", r#"{"a":1}"#] {
        let error = serde_json::from_str::<JsonRpcRequest>(&request_text(id)).unwrap_err();
        assert!(error.to_string().contains("`id`"), "{id}: {error}");
        assert!(serde_json::from_str::<RequestId>(id).is_err());
    }
}

#[test]
fn batch_arrays_and_non_object_bodies_are_rejected() {
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}]);
    assert_eq!(JsonRpcRequest::from_value(batch), Err(EnvelopeError::Batch));
    for body in [json!("GetTask"), json!(1), json!(null), json!(true)] {
        assert_eq!(
            JsonRpcRequest::from_value(body.clone()),
            Err(EnvelopeError::NotAnObject)
        );
        assert_eq!(
            JsonRpcResponse::from_value(body),
            Err(EnvelopeError::NotAnObject)
        );
    }
    let error = serde_json::from_str::<JsonRpcRequest>("[]").unwrap_err();
    assert!(error.to_string().contains("batch"), "{error}");
}

#[test]
fn requests_with_a_bad_envelope_are_rejected_naming_the_member() {
    let cases = [
        (
            json!({"jsonrpc": "1.0", "method": "GetTask"}),
            EnvelopeError::UnsupportedVersion,
        ),
        (
            json!({"jsonrpc": 2.0, "method": "GetTask"}),
            EnvelopeError::UnsupportedVersion,
        ),
        (
            json!({"method": "GetTask"}),
            EnvelopeError::MissingMember { member: "jsonrpc" },
        ),
        (
            json!({"jsonrpc": "2.0"}),
            EnvelopeError::MissingMember { member: "method" },
        ),
        (
            json!({"jsonrpc": "2.0", "method": 5}),
            EnvelopeError::invalid("method", "a string"),
        ),
        (
            json!({"jsonrpc": "2.0", "method": "GetTask", "params": "t1"}),
            EnvelopeError::invalid("params", "an object or an array"),
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(
            JsonRpcRequest::from_value(body.clone()),
            Err(expected),
            "{body}"
        );
    }
    let error = serde_json::from_str::<JsonRpcRequest>(r#"{"jsonrpc":"2.0","method":5}"#);
    assert!(
        error
            .unwrap_err()
            .to_string()
            .contains("member `method` must be a string")
    );
}

#[test]
fn null_params_are_read_as_absent() {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard", "params": null});
    let request = JsonRpcRequest::from_value(body).unwrap();
    assert_eq!(request.params, None);
    assert_eq!(request.a2a_method(), Some(Method::GetExtendedAgentCard));
}

#[test]
fn the_id_of_an_invalid_request_is_recovered_when_it_is_valid() {
    assert_eq!(
        RequestId::of_request(&json!({"id": "r1", "jsonrpc": "1.0"})),
        "r1".into()
    );
    assert_eq!(RequestId::of_request(&json!({"id": true})), RequestId::Null);
    assert_eq!(RequestId::of_request(&json!([1])), RequestId::Null);
}

#[test]
fn success_and_error_responses_round_trip_to_the_same_text() {
    let texts = [
        r#"{"jsonrpc":"2.0","id":7,"result":{"task":{"id":"t1"}}}"#,
        r#"{"jsonrpc":"2.0","id":"r1","result":null}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Invalid JSON payload"}}"#,
        r#"{"jsonrpc":"2.0","id":2.5,"error":{"code":-32001,"message":"m","data":[{"@type":"x"}]}}"#,
    ];
    for text in texts {
        let response: JsonRpcResponse = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&response).unwrap(), text);
    }
}

#[test]
fn a_response_with_both_or_neither_of_result_and_error_is_rejected() {
    let both =
        json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}});
    let error = serde_json::from_value::<JsonRpcResponse>(both)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`result`") && error.contains("`error`"),
        "{error}"
    );
    let neither = json!({"jsonrpc": "2.0", "id": 1});
    let error = serde_json::from_value::<JsonRpcResponse>(neither)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`result`") && error.contains("`error`"),
        "{error}"
    );
}

#[test]
fn a_null_error_beside_a_result_and_a_missing_id_are_tolerated() {
    let body = json!({"jsonrpc": "2.0", "result": {"ok": true}, "error": null});
    let response = JsonRpcResponse::from_value(body).unwrap();
    assert_eq!(
        response,
        JsonRpcResponse::success(RequestId::Null, json!({"ok": true}))
    );
    let bad_error = json!({"jsonrpc": "2.0", "id": 1, "error": "boom"});
    let expected = EnvelopeError::invalid("error", "an object with an integer code and a message");
    assert_eq!(JsonRpcResponse::from_value(bad_error), Err(expected));
}

#[test]
fn into_result_decodes_the_result_or_recovers_the_agent_error() {
    let ok = JsonRpcResponse::success(1_i64.into(), json!({"id": "t1"}));
    assert_eq!(ok.into_result::<Value>().unwrap(), json!({"id": "t1"}));

    let wrong_shape = JsonRpcResponse::success(1_i64.into(), json!("text"));
    let error = wrong_shape.into_result::<Vec<u8>>().unwrap_err();
    assert!(matches!(error, ResponseError::Decode(_)), "{error:?}");

    let failed = JsonRpcResponse::error(
        1_i64.into(),
        A2aError::task_not_found("t-9").to_jsonrpc_error(),
    );
    let Err(ResponseError::Agent(agent)) = failed.into_result::<Value>() else {
        panic!("expected an agent error");
    };
    assert_eq!(agent.kind(), ErrorKind::TaskNotFound);
    assert_eq!(agent.metadata()["taskId"], "t-9");
}

#[test]
fn constructed_requests_serialise_as_the_spec_shows() {
    let request = JsonRpcRequest::new("r1", methods::SEND_MESSAGE, Some(json!({"message": {}})));
    let expected = r#"{"jsonrpc":"2.0","id":"r1","method":"SendMessage","params":{"message":{}}}"#;
    assert_eq!(serde_json::to_string(&request).unwrap(), expected);
    let notification = JsonRpcRequest::notification(methods::GET_TASK, None);
    assert_eq!(
        serde_json::to_string(&notification).unwrap(),
        r#"{"jsonrpc":"2.0","method":"GetTask"}"#
    );
}

#[test]
fn method_names_match_the_v1_0_constants_and_parse_back() {
    assert_eq!(Method::ALL.map(Method::as_str), methods::ALL);
    for method in Method::ALL {
        assert_eq!(method.as_str().parse::<Method>(), Ok(method));
        assert_eq!(method.to_string(), method.as_str());
    }
    let error = "sendMessage".parse::<Method>().unwrap_err();
    assert_eq!(
        (error.name(), error.to_string().as_str()),
        ("sendMessage", r#"unknown method "sendMessage""#)
    );
}

#[test]
fn only_send_streaming_message_and_subscribe_to_task_stream() {
    let streaming: Vec<_> = Method::ALL
        .into_iter()
        .filter(|m| m.is_streaming())
        .collect();
    assert_eq!(
        streaming,
        [Method::SendStreamingMessage, Method::SubscribeToTask]
    );
}

#[test]
fn v0_3_method_names_map_to_their_v1_0_names() {
    let cases = [
        ("message/send", "SendMessage"),
        ("message/stream", "SendStreamingMessage"),
        ("tasks/get", "GetTask"),
        ("tasks/cancel", "CancelTask"),
        ("tasks/resubscribe", "SubscribeToTask"),
        (
            "tasks/pushNotificationConfig/set",
            "CreateTaskPushNotificationConfig",
        ),
        (
            "tasks/pushNotificationConfig/get",
            "GetTaskPushNotificationConfig",
        ),
        (
            "tasks/pushNotificationConfig/list",
            "ListTaskPushNotificationConfigs",
        ),
        (
            "tasks/pushNotificationConfig/delete",
            "DeleteTaskPushNotificationConfig",
        ),
        ("agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard"),
    ];
    assert_eq!(cases.map(|(old, _)| old), v0_3::ALL);
    for (old, new) in cases {
        assert_eq!(v0_3::to_v1_name(old), Some(new), "{old}");
    }
    assert_eq!(v0_3::to_v1_name("tasks/list"), None);
    assert_eq!(v0_3::to_v1_name("SendMessage"), None);
    assert_eq!(Method::ListTasks.v0_3_name(), None);
}
