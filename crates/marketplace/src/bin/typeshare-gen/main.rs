//! `typeshare-gen [OUT]`: writes the TypeScript of the functions' wire types
//! (`crates/marketplace/src/wire.rs`) to `OUT`, by default
//! `sdk-ts/src/functions-types.ts` of this repository. Run by `scripts/gen`:
//!
//! ```sh
//! cargo run -p plinth-marketplace --features typegen --bin typeshare-gen
//! ```

mod generate;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| crate_dir.join("../..").join(generate::OUTPUT));
    let written = generate::typescript(&crate_dir.join("src"))
        .and_then(|ts| std::fs::write(&out, ts).map_err(|e| format!("{}: {e}", out.display())));
    match written {
        Ok(()) => {
            eprintln!("wrote {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("typeshare-gen: {e}");
            ExitCode::FAILURE
        }
    }
}
