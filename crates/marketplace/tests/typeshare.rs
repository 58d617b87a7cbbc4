//! The committed `sdk-ts/src/functions-types.ts` must be what typeshare
//! makes of `src/wire.rs` now (run `scripts/gen` when this fails).

#[path = "../src/bin/typeshare-gen/generate.rs"]
mod generate;

use std::path::Path;

#[test]
fn functions_types_are_fresh() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fresh = generate::typescript(&crate_dir.join("src")).unwrap_or_else(|e| panic!("{e}"));
    for name in [
        "CreatePaymentIntentResponse",
        "ValidateDownloadResponse",
        "ErrorResponse",
    ] {
        assert!(
            fresh.contains(&format!("export interface {name} {{")),
            "{name} missing:\n{fresh}"
        );
    }
    let path = crate_dir.join("../..").join(generate::OUTPUT);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{} is stale: run scripts/gen (or cargo run -p plinth-marketplace --features typegen --bin typeshare-gen)",
        path.display()
    );
}

#[test]
fn generation_is_deterministic() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let first = generate::typescript(&src).unwrap_or_else(|e| panic!("{e}"));
    let second = generate::typescript(&src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first, second);
}
