//! Compiles `proto/lf/a2a/v1/a2a.proto` into prost messages and tonic service stubs, with
//! the protoc that ships in `protoc-bin-vendored`, so no system protoc is needed.

use std::error::Error;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    let proto = PathBuf::from("proto/lf/a2a/v1/a2a.proto");
    let mut config = tonic_prost_build::Config::new();
    config.protoc_executable(protoc_bin_vendored::protoc_bin_path()?);
    let well_known = protoc_bin_vendored::include_path()?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .build_transport(false)
        .compile_with_config(config, &[proto], &[PathBuf::from("proto"), well_known])?;
    Ok(())
}
