//! `google.protobuf.Struct`, `Value` and `Timestamp` against `serde_json` and
//! `a2a_types::Timestamp`.

use a2a_grpc::convert::{
    json_to_value, metadata_to_struct, struct_to_metadata, timestamp_from_proto,
    timestamp_to_proto, value_to_json,
};
use a2a_types::Timestamp;
use prost_types::Value as ProtoValue;
use prost_types::value::Kind;
use serde_json::json;

#[test]
fn every_json_kind_survives_a_value() {
    let value = json!({
        "null": null,
        "flag": true,
        "text": "héllo",
        "integer": -12,
        "fraction": 0.25,
        "list": [1, "two", [3.5], {"four": false}],
        "object": {"nested": {"deeper": []}},
        "empty": {}
    });
    assert_eq!(value_to_json(json_to_value(value.clone())), value);
    let object = value.as_object().unwrap().clone();
    assert_eq!(
        struct_to_metadata(metadata_to_struct(object.clone())),
        object
    );
}

#[test]
fn a_value_with_no_kind_reads_as_null() {
    assert_eq!(value_to_json(ProtoValue { kind: None }), json!(null));
}

#[test]
fn numbers_json_cannot_hold_read_as_null() {
    for number in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let value = ProtoValue {
            kind: Some(Kind::NumberValue(number)),
        };
        assert_eq!(value_to_json(value), json!(null), "{number}");
    }
}

#[test]
fn timestamps_keep_their_instant_and_print_the_shortest_exact_fraction() {
    let cases = [
        ("2025-06-01T12:00:00Z", "2025-06-01T12:00:00Z"),
        ("2025-06-01T12:00:00.120Z", "2025-06-01T12:00:00.120Z"),
        ("2025-06-01T12:00:00.123456Z", "2025-06-01T12:00:00.123456Z"),
        (
            "2025-06-01T12:00:00.000000001Z",
            "2025-06-01T12:00:00.000000001Z",
        ),
        ("2025-06-01T14:00:00.5+02:00", "2025-06-01T12:00:00.500Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
        (
            "9999-12-31T23:59:59.999999999Z",
            "9999-12-31T23:59:59.999999999Z",
        ),
        ("1969-07-20T20:17:40Z", "1969-07-20T20:17:40Z"),
    ];
    for (written, expected) in cases {
        let original = Timestamp::parse(written).unwrap();
        let proto = timestamp_to_proto(original);
        let back = timestamp_from_proto(proto).unwrap();
        assert_eq!(back, original, "{written}");
        assert_eq!(back.to_string(), expected, "{written}");
    }
}

#[test]
fn timestamps_outside_rfc_3339_are_refused_naming_the_field() {
    let cases = [
        (-62_135_596_801, 0, "seconds"),
        (253_402_300_800, 0, "seconds"),
        (0, -1, "nanos"),
        (0, 1_000_000_000, "nanos"),
    ];
    for (seconds, nanos, field) in cases {
        let err = timestamp_from_proto(prost_types::Timestamp { seconds, nanos }).unwrap_err();
        assert_eq!(err.path(), field, "{seconds}s {nanos}ns: {err}");
    }
}
