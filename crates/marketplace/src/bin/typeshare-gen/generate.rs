//! TypeScript from the `#[typeshare]` types of this crate, with the
//! typeshare generator library (what `typeshare-cli` runs), in one file.
//! Shared by the `typeshare-gen` binary (which writes it) and the test that
//! fails when the committed file is stale (which compares it).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use typeshare_core::context::{ParseContext, ParseFileContext};
use typeshare_core::language::{Language, SINGLE_FILE_CRATE_NAME, TypeScript};
use typeshare_core::parser::{ParsedData, parse};

/// Where the generated file lives, from the repository's root.
pub const OUTPUT: &str = "sdk-ts/src/functions-types.ts";

const HEADER: &str = "// Generated from crates/marketplace/src/wire.rs with typeshare by `scripts/gen`.\n\
                      // Do not edit: change the Rust types and run it again.\n\n";

/// Rust types that typeshare does not know, as they travel in JSON.
fn type_mappings() -> HashMap<String, String> {
    HashMap::from([("Uuid".to_owned(), "string".to_owned())])
}

/// Every `.rs` file under `dir` except the binaries', sorted.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "bin") {
                sources(&path, out)?;
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    Ok(())
}

/// The TypeScript of the `#[typeshare]` items in the crate sources at
/// `src_dir` (the functions crate's `src`).
pub fn typescript(src_dir: &Path) -> Result<String, String> {
    let mut files = Vec::new();
    sources(src_dir, &mut files)?;
    let context = ParseContext::default();
    let mut data = ParsedData::new(SINGLE_FILE_CRATE_NAME, String::new(), false);
    for path in files {
        let source_code =
            fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = ParseFileContext {
            source_code,
            crate_name: SINGLE_FILE_CRATE_NAME,
            file_name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            file_path: path.clone(),
        };
        let parsed = parse(&context, file).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(parsed) = parsed {
            if let Some(error) = parsed.errors.first() {
                return Err(format!("{}: {}", error.file_name, error.error));
            }
            data += parsed;
        }
    }
    if data.structs.is_empty() {
        return Err(format!("no #[typeshare] types under {}", src_dir.display()));
    }
    let mut language = TypeScript {
        type_mappings: type_mappings(),
        ..TypeScript::default()
    };
    let mut out = HEADER.as_bytes().to_vec();
    language
        .generate_types(&mut out, &HashMap::new(), data)
        .map_err(|e| format!("generating TypeScript: {e}"))?;
    String::from_utf8(out).map_err(|e| format!("generated TypeScript is not UTF-8: {e}"))
}
