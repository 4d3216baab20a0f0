//! Our `a2a.proto` against the official one, as the Python SDK (`a2a-sdk` 1.3.0) compiled it:
//! every message's fields (name, number, type, label, type name, oneof, proto3 `optional`,
//! JSON name), every enum value and every rpc must be the same. Options (HTTP annotations,
//! field behaviour) are not compared: they do not change the wire.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use prost::Message as _;
use prost_types::{DescriptorProto, EnumDescriptorProto, FileDescriptorProto, FileDescriptorSet};

/// Prints the same listing as [`listing`] from the SDK's compiled descriptor.
const PYTHON_LISTING: &str = r#"
from a2a.types import a2a_pb2
from google.protobuf import descriptor_pb2

file = descriptor_pb2.FileDescriptorProto()
a2a_pb2.DESCRIPTOR.CopyToProto(file)
prefix = "." + file.package

def message(scope, m):
    name = scope + "." + m.name
    print("message", name)
    for f in m.field:
        oneof = m.oneof_decl[f.oneof_index].name if f.HasField("oneof_index") else "-"
        print("field", name + "." + f.name, "number=%d" % f.number, "type=%d" % f.type,
              "label=%d" % f.label, "type_name=" + (f.type_name or "-"), "oneof=" + oneof,
              "proto3_optional=" + str(f.proto3_optional).lower(), "json_name=" + f.json_name)
    for nested in m.nested_type:
        message(name, nested)
    for e in m.enum_type:
        enum(name, e)

def enum(scope, e):
    for v in e.value:
        print("enum", scope + "." + e.name, v.name, "=", v.number)

for m in file.message_type:
    message(prefix, m)
for e in file.enum_type:
    enum(prefix, e)
for s in file.service:
    for r in s.method:
        print("rpc", prefix + "." + s.name + "." + r.name, "input=" + r.input_type,
              "output=" + r.output_type,
              "client_streaming=" + str(r.client_streaming).lower(),
              "server_streaming=" + str(r.server_streaming).lower())
"#;

fn message(lines: &mut BTreeSet<String>, scope: &str, message_type: &DescriptorProto) {
    let name = format!("{scope}.{}", message_type.name());
    lines.insert(format!("message {name}"));
    for field in &message_type.field {
        let oneof = field
            .oneof_index
            .and_then(|index| message_type.oneof_decl.get(usize::try_from(index).unwrap()))
            .map_or("-", |oneof| oneof.name());
        let type_name = if field.type_name().is_empty() {
            "-"
        } else {
            field.type_name()
        };
        lines.insert(format!(
            "field {name}.{} number={} type={} label={} type_name={type_name} oneof={oneof} \
             proto3_optional={} json_name={}",
            field.name(),
            field.number(),
            field.r#type() as i32,
            field.label() as i32,
            field.proto3_optional(),
            field.json_name(),
        ));
    }
    for nested in &message_type.nested_type {
        message(lines, &name, nested);
    }
    for nested in &message_type.enum_type {
        enumeration(lines, &name, nested);
    }
}

fn enumeration(lines: &mut BTreeSet<String>, scope: &str, enum_type: &EnumDescriptorProto) {
    for value in &enum_type.value {
        lines.insert(format!(
            "enum {scope}.{} {} = {}",
            enum_type.name(),
            value.name(),
            value.number()
        ));
    }
}

/// The listing of one compiled file, one line per message, field, enum value and rpc.
fn listing(file: &FileDescriptorProto) -> BTreeSet<String> {
    let mut lines = BTreeSet::new();
    let prefix = format!(".{}", file.package());
    for message_type in &file.message_type {
        message(&mut lines, &prefix, message_type);
    }
    for enum_type in &file.enum_type {
        enumeration(&mut lines, &prefix, enum_type);
    }
    for service in &file.service {
        for method in &service.method {
            lines.insert(format!(
                "rpc {prefix}.{}.{} input={} output={} client_streaming={} server_streaming={}",
                service.name(),
                method.name(),
                method.input_type(),
                method.output_type(),
                method.client_streaming(),
                method.server_streaming(),
            ));
        }
    }
    lines
}

/// Our proto compiled by the same vendored protoc as `build.rs`.
fn our_descriptor() -> FileDescriptorProto {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output =
        std::env::temp_dir().join(format!("a2a-grpc-descriptor-{}.pb", std::process::id()));
    let status = Command::new(protoc_bin_vendored::protoc_bin_path().unwrap())
        .arg(format!("--descriptor_set_out={}", output.display()))
        .arg("-I")
        .arg(manifest.join("proto"))
        .arg("-I")
        .arg(protoc_bin_vendored::include_path().unwrap())
        .arg(manifest.join("proto/lf/a2a/v1/a2a.proto"))
        .status()
        .unwrap();
    assert!(status.success(), "protoc failed: {status}");
    let bytes = std::fs::read(&output).unwrap();
    std::fs::remove_file(&output).unwrap();
    let set = FileDescriptorSet::decode(bytes.as_slice()).unwrap();
    let [file] = <[FileDescriptorProto; 1]>::try_from(set.file).unwrap();
    file
}

#[test]
fn our_descriptor_matches_the_python_sdk() {
    let Some(python) = a2a_test_support::python::interpreter() else {
        return; // skipped with a notice; fails instead under CI=true
    };
    let output = Command::new(python)
        .arg("-c")
        .arg(PYTHON_LISTING)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the Python listing failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let theirs: BTreeSet<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let ours = listing(&our_descriptor());
    let only_ours: Vec<_> = ours.difference(&theirs).collect();
    let only_theirs: Vec<_> = theirs.difference(&ours).collect();
    assert!(
        only_ours.is_empty() && only_theirs.is_empty(),
        "descriptors differ\nonly in ours:\n  {}\nonly in the SDK's:\n  {}",
        only_ours
            .iter()
            .map(|line| line.as_str())
            .collect::<Vec<_>>()
            .join("\n  "),
        only_theirs
            .iter()
            .map(|line| line.as_str())
            .collect::<Vec<_>>()
            .join("\n  "),
    );
    eprintln!("{} descriptor lines agree", ours.len());
}
