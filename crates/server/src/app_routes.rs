//! The built app's own routes (`routes.json` beside its `index.html`, a
//! list of path patterns such as `/category/:slug`), so that a path the
//! app has no screen for is answered 404 (still with the app, which shows
//! its not-found screen) instead of 200: crawlers and link checkers see a
//! missing page as missing. Without the file every path is the app's, as
//! before. The file is read again when it changes (an app rebuilt under a
//! running node may bring new routes), as the pages' `index.html` is.
//!
//! Patterns match as the app's router matches them: a literal segment
//! regardless of case, `:name` any one non-empty segment, a trailing `/*`
//! anything below; a trailing slash on the path is ignored.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

/// The file an app build writes its route patterns to.
pub const ROUTES_FILE: &str = "routes.json";
/// More patterns than any app has: a file past it is not read.
const MAX_PATTERNS: usize = 1000;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Param,
    Rest,
}

/// The route patterns of a built app.
#[derive(Debug, Clone)]
pub struct AppRoutes(Vec<Vec<Segment>>);

impl AppRoutes {
    /// The patterns of the file at `path`; `None` without one (or with one
    /// that is not a list of patterns, which is logged).
    fn load(path: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(path).ok()?;
        match Self::parse(&text) {
            Ok(routes) => Some(routes),
            Err(reason) => {
                tracing::warn!(file = %path.display(), reason, "the app's routes are not used: every path answers with the app");
                None
            }
        }
    }

    fn parse(text: &str) -> Result<Self, &'static str> {
        let patterns: Vec<String> =
            serde_json::from_str(text).map_err(|_| "not a JSON list of path patterns")?;
        if patterns.len() > MAX_PATTERNS {
            return Err("too many patterns");
        }
        let parsed = patterns
            .iter()
            .map(|p| {
                let rest = p.strip_prefix('/').ok_or("a pattern starts with /")?;
                let parts: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
                let last = parts.len().saturating_sub(1);
                parts
                    .iter()
                    .enumerate()
                    .map(|(i, part)| match *part {
                        "*" if i == last => Ok(Segment::Rest),
                        "*" => Err("* ends a pattern"),
                        p if p.starts_with(':') => Ok(Segment::Param),
                        p => Ok(Segment::Literal(p.to_lowercase())),
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self(parsed))
    }

    /// Whether some route of the app shows `path` (a URL path, undecoded).
    pub fn matches(&self, path: &str) -> bool {
        let parts: Vec<String> = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .to_lowercase()
            })
            .collect();
        self.0.iter().any(|pattern| matches(pattern, &parts))
    }
}

fn matches(pattern: &[Segment], parts: &[String]) -> bool {
    let mut parts = parts.iter();
    for segment in pattern {
        match segment {
            Segment::Rest => return true,
            Segment::Param => {
                if parts.next().is_none() {
                    return false;
                }
            }
            Segment::Literal(literal) => {
                if parts.next() != Some(literal) {
                    return false;
                }
            }
        }
    }
    parts.next().is_none()
}

/// An app's `routes.json`, read again when its modification time changes
/// (or it appears, or goes).
pub struct RoutesFile {
    path: PathBuf,
    current: Mutex<(Option<SystemTime>, Option<Arc<AppRoutes>>)>,
}

impl RoutesFile {
    /// The routes file of the app in `app_dir`, read now.
    pub fn new(app_dir: &Path) -> Self {
        let path = app_dir.join(ROUTES_FILE);
        let current = (modified(&path), AppRoutes::load(&path).map(Arc::new));
        Self {
            path,
            current: Mutex::new(current),
        }
    }

    /// The app's routes as the file says now; `None` when there are none
    /// to go by (every path is the app's).
    fn get(&self) -> Option<Arc<AppRoutes>> {
        let modified = modified(&self.path);
        let mut current = match self.current.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if modified != current.0 {
            *current = (modified, AppRoutes::load(&self.path).map(Arc::new));
        }
        current.1.clone()
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Marks the app's answer to a path none of its routes shows as 404 (the
/// fallback answers such paths with `index.html`, the app then shows its
/// not-found screen). Files of the app (`/favicon.svg`) are not HTML and
/// pass as they are.
pub async fn not_found_outside_routes(
    State(routes): State<Arc<RoutesFile>>,
    request: Request,
    next: Next,
) -> Response {
    let uri = request.uri().clone();
    let mut response = next.run(request).await;
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"text/html"));
    if html
        && response.status() == StatusCode::OK
        && uri.path() != "/index.html"
        && routes
            .get()
            .is_some_and(|routes| !routes.matches(uri.path()))
    {
        *response.status_mut() = StatusCode::NOT_FOUND;
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_as_the_apps_router_matches_them() {
        let routes = AppRoutes::parse(
            r#"["/", "/discover", "/category/:slug", "/dashboard/templates/edit/:id", "/docs/*"]"#,
        )
        .unwrap();
        for path in [
            "/",
            "/discover",
            "/Discover/",
            "/category/fonts",
            "/category/%C3%A9t%C3%A9",
            "/dashboard/templates/edit/42",
            "/docs",
            "/docs/a/b",
        ] {
            assert!(routes.matches(path), "{path}");
        }
        for path in [
            "/nowhere",
            "/category",
            "/category/a/b",
            "/dashboard/templates/edit",
            "/discover/more",
            "/assets/missing.js",
        ] {
            assert!(!routes.matches(path), "{path}");
        }
    }

    #[test]
    fn a_file_that_is_not_a_list_of_patterns_is_refused() {
        assert!(AppRoutes::parse("{}").is_err());
        assert!(AppRoutes::parse(r#"["discover"]"#).is_err());
        assert!(AppRoutes::parse(r#"["/a/*/b"]"#).is_err());
        let many = serde_json::to_string(&vec!["/a"; MAX_PATTERNS + 1]).unwrap();
        assert!(AppRoutes::parse(&many).is_err());
        assert!(AppRoutes::parse("[]").unwrap().0.is_empty());
    }
}
