//! The functions folder: which functions exist, their settings
//! (`config.toml`, `deno.json`) and a fingerprint of their files.
//!
//! Layout, as on the platform:
//!
//! ```text
//! functions/
//!   config.toml          # optional: [functions.<name>] verify_jwt, import_map, entrypoint, static_files
//!   hello/index.ts       # Deno.serve(...)
//!   hello/deno.json      # optional: imports, compiler options
//!   _shared/cors.ts      # folders starting with `_`: code every function may import
//! ```
//!
//! Paths in `config.toml` are relative to the functions folder and must stay
//! inside it (`entrypoint` and `import_map` inside the function's own folder).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

/// A function name as the platform allows it: a letter, then letters,
/// digits, `-` and `_`, at most 64 in all. Anything else (`..`, `/`, `%2e`)
/// is no function.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// One function, resolved: what a worker is started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSpec {
    pub name: String,
    /// Its folder (the worker may read it, and only it and `static_files`).
    pub dir: PathBuf,
    pub entrypoint: PathBuf,
    pub verify_jwt: bool,
    /// `deno.json` / `deno.jsonc` of its folder.
    pub deno_config: Option<PathBuf>,
    pub import_map: Option<PathBuf>,
    /// More paths it may read (`static_files`, and the `_` folders).
    pub static_files: Vec<PathBuf>,
}

/// Why a function's settings cannot be used; the function answers 503 with
/// this (and the server logs it).
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("config.toml cannot be read: {0}")]
    Config(String),
    #[error("functions.{name}.{key} must stay inside {within}")]
    Outside {
        name: String,
        key: &'static str,
        within: String,
    },
}

#[derive(Debug, Default, Deserialize)]
struct ConfigFile {
    #[serde(default)]
    functions: HashMap<String, FunctionSettings>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionSettings {
    verify_jwt: Option<bool>,
    import_map: Option<String>,
    entrypoint: Option<String>,
    #[serde(default)]
    static_files: Vec<String>,
    /// The platform's deploy-time switch; accepted and ignored here.
    #[allow(dead_code)]
    enabled: Option<bool>,
}

/// The folder of functions.
#[derive(Debug, Clone)]
pub struct Project {
    dir: PathBuf,
}

impl Project {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The names of the folders that hold a function (an `index.ts`, or an
    /// `entrypoint` in `config.toml`), sorted.
    pub fn names(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| valid_name(name) && matches!(self.spec(name), Ok(Some(_))))
            .collect();
        names.sort();
        names
    }

    /// The function `name`, when it exists. `Err` when it exists but its
    /// settings are wrong.
    pub fn spec(&self, name: &str) -> Result<Option<FunctionSpec>, SpecError> {
        if !valid_name(name) {
            return Ok(None);
        }
        let dir = self.dir.join(name);
        if !dir.is_dir() {
            return Ok(None);
        }
        let settings = self.settings(name)?;
        let entrypoint = match &settings.entrypoint {
            Some(path) => inside(&self.dir, &dir, path, name, "entrypoint")?,
            None => dir.join("index.ts"),
        };
        if !entrypoint.is_file() {
            return Ok(None);
        }
        let import_map = settings
            .import_map
            .as_deref()
            .map(|path| inside(&self.dir, &dir, path, name, "import_map"))
            .transpose()?;
        let mut static_files: Vec<PathBuf> = settings
            .static_files
            .iter()
            .map(|path| {
                inside(
                    &self.dir,
                    &self.dir,
                    static_root(path),
                    name,
                    "static_files",
                )
            })
            .collect::<Result<_, _>>()?;
        static_files.extend(self.shared_dirs());
        let deno_config = ["deno.json", "deno.jsonc"]
            .into_iter()
            .map(|file| dir.join(file))
            .find(|path| path.is_file());
        Ok(Some(FunctionSpec {
            name: name.to_owned(),
            dir,
            entrypoint,
            verify_jwt: settings.verify_jwt.unwrap_or(true),
            deno_config,
            import_map,
            static_files,
        }))
    }

    /// The folders every function may import from and read: those whose
    /// name starts with `_` (`_shared/`, as in the platform's layout), which
    /// are never functions themselves.
    pub fn shared_dirs(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with('_'))
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        dirs.sort();
        dirs
    }

    fn settings(&self, name: &str) -> Result<FunctionSettings, SpecError> {
        let path = self.dir.join("config.toml");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
            Err(e) => return Err(SpecError::Config(e.to_string())),
        };
        let file: ConfigFile =
            toml::from_str(&text).map_err(|e| SpecError::Config(e.message().to_owned()))?;
        Ok(file.functions.get(name).cloned().unwrap_or_default())
    }

    /// A value that changes when any file of the function (or
    /// `config.toml`) is added, removed, resized or touched.
    pub fn fingerprint(&self, spec: &FunctionSpec) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        stamp(&self.dir.join("config.toml"), &mut hasher);
        let mut stack: Vec<(PathBuf, u32)> = std::iter::once(spec.dir.clone())
            .chain(self.shared_dirs())
            .map(|dir| (dir, 0))
            .collect();
        let mut seen = 0;
        while let Some((dir, depth)) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).collect();
            entries.sort_by_key(|e| e.file_name());
            for entry in entries {
                seen += 1;
                // A folder of dependencies is not watched file by file.
                if seen > 5_000 || entry.file_name() == "node_modules" {
                    continue;
                }
                let path = entry.path();
                stamp(&path, &mut hasher);
                if depth < 8 && entry.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push((path, depth + 1));
                }
            }
        }
        hasher.finish()
    }
}

fn stamp(path: &Path, hasher: &mut impl Hasher) {
    path.hash(hasher);
    if let Ok(meta) = std::fs::metadata(path) {
        meta.len().hash(hasher);
        meta.modified().ok().hash(hasher);
    }
}

/// The fixed part of a `static_files` pattern (`./data/*.json` → `./data`).
fn static_root(pattern: &str) -> &str {
    match pattern.find(['*', '?', '[', '{']) {
        Some(at) => pattern[..at].rsplit_once('/').map_or(".", |(root, _)| root),
        None => pattern,
    }
}

/// `path` (relative to `base`) resolved, refused when it leaves `within`.
fn inside(
    base: &Path,
    within: &Path,
    path: &str,
    name: &str,
    key: &'static str,
) -> Result<PathBuf, SpecError> {
    let mut resolved = base.to_owned();
    for part in Path::new(path).components() {
        match part {
            Component::CurDir => {}
            Component::Normal(part) => resolved.push(part),
            Component::ParentDir => {
                resolved.pop();
            }
            Component::RootDir | Component::Prefix(_) => resolved = PathBuf::from("/"),
        }
    }
    if resolved.starts_with(within) {
        Ok(resolved)
    } else {
        Err(SpecError::Outside {
            name: name.to_owned(),
            key,
            within: within.display().to_string(),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_platforms() {
        for good in ["hello", "hello-world", "a_b1", "A"] {
            assert!(valid_name(good), "{good}");
        }
        let long = "a".repeat(65);
        for bad in [
            "", "..", "../x", "a/b", "1abc", "-x", "a.b", "a%2e", "é", &long,
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn settings_are_read_and_kept_inside() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        std::fs::create_dir_all(dir.join("open/data")).unwrap();
        std::fs::write(dir.join("open/index.ts"), "").unwrap();
        std::fs::write(dir.join("open/deno.json"), "{}").unwrap();
        std::fs::create_dir_all(dir.join("plain")).unwrap();
        std::fs::write(dir.join("plain/index.ts"), "").unwrap();
        std::fs::create_dir_all(dir.join("empty")).unwrap();
        std::fs::create_dir_all(dir.join("escape")).unwrap();
        std::fs::create_dir_all(dir.join("_shared")).unwrap();
        std::fs::write(dir.join("_shared/index.ts"), "").unwrap();
        std::fs::write(dir.join("escape/index.ts"), "").unwrap();
        std::fs::write(
            dir.join("config.toml"),
            "[functions.open]\nverify_jwt = false\nstatic_files = [\"./open/data/*.json\"]\n\
             [functions.escape]\nentrypoint = \"../../etc/passwd\"\n",
        )
        .unwrap();
        let project = Project::new(dir);
        let open = project.spec("open").unwrap().unwrap();
        assert!(!open.verify_jwt);
        assert_eq!(open.deno_config, Some(dir.join("open/deno.json")));
        assert_eq!(
            open.static_files,
            vec![dir.join("open/data"), dir.join("_shared")]
        );
        let plain = project.spec("plain").unwrap().unwrap();
        assert!(plain.verify_jwt);
        assert_eq!(plain.entrypoint, dir.join("plain/index.ts"));
        assert!(project.spec("empty").unwrap().is_none());
        assert!(project.spec("../plain").unwrap().is_none());
        assert!(matches!(
            project.spec("escape"),
            Err(SpecError::Outside { .. })
        ));
        assert_eq!(project.names(), vec!["open", "plain"]);

        let before = project.fingerprint(&plain);
        std::fs::write(dir.join("plain/more.ts"), "export {}").unwrap();
        let after = project.fingerprint(&plain);
        assert_ne!(after, before);
        // Shared code counts as the function's own.
        std::fs::write(dir.join("_shared/util.ts"), "export {}").unwrap();
        assert_ne!(project.fingerprint(&plain), after);
    }
}
