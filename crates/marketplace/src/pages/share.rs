//! The image on the card of a shared link (`og:image`, `twitter:image`).
//!
//! Every page has one (issue 44 item 10): a template its preview, a creator
//! their avatar, and every other page, or a page whose own image cannot be
//! shown, the site's default share image (`app/public/share-image.png`,
//! 1200×630, made by `app/scripts/share-images.mjs`). Social sites do not
//! render SVG, so an SVG is never the card's image: a site file such as the
//! demo's `/demo/planner.svg` stands for the PNG beside it in the built app
//! (`/demo/planner.png`) when there is one, else the default; a stored or
//! external SVG gives the default.

use std::path::Path;

use percent_encoding::percent_decode_str;

/// The default share image, a file of the built app.
pub(super) const DEFAULT_IMAGE: &str = "/share-image.png";
pub(super) const DEFAULT_WIDTH: u32 = 1200;
pub(super) const DEFAULT_HEIGHT: u32 = 630;
pub(super) const DEFAULT_ALT: &str = "Plinth Templates: templates for your workspace";

/// Whether `path` (a URL's path, without query or fragment) names an SVG.
pub(super) fn is_svg(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".svg")
}

/// The site path of the PNG that stands for the site file `path` (an SVG),
/// when the built app in `app_dir` has one; `None` otherwise (and for any
/// path that is not a plain path inside the app).
pub(super) fn raster_sibling(app_dir: &Path, path: &str) -> Option<String> {
    let path = path.split(['?', '#']).next()?;
    let decoded = percent_decode_str(path).decode_utf8().ok()?;
    let relative = decoded.strip_prefix('/')?;
    if relative.is_empty()
        || relative.starts_with('/')
        || relative
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == ".." || s.contains('\\'))
        || relative.chars().any(|c| c.is_control() || c == ':')
        || !is_svg(relative)
    {
        return None;
    }
    let png = format!("{}.png", &relative[..relative.len() - ".svg".len()]);
    app_dir.join(&png).is_file().then(|| format!("/{png}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_svg_site_file_stands_for_its_png_only_when_the_app_has_one() {
        let dir = std::env::temp_dir().join(format!("plinth-share-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(dir.join("demo")).unwrap();
        std::fs::write(dir.join("demo/planner.png"), b"png").unwrap();
        std::fs::write(dir.join("demo/planner.svg"), b"<svg/>").unwrap();
        assert_eq!(
            raster_sibling(&dir, "/demo/planner.svg").as_deref(),
            Some("/demo/planner.png")
        );
        assert_eq!(
            raster_sibling(&dir, "/demo/Planner.SVG?v=2").as_deref(),
            None,
            "no such file (case matters on disk)"
        );
        for path in [
            "/demo/wiki.svg",
            "/demo/planner.png",
            "/demo/../demo/planner.svg",
            "/demo/%2e%2e/demo/planner.svg",
            "//demo/planner.svg",
            "/demo//planner.svg",
            "demo/planner.svg",
            "/demo\\planner.svg",
        ] {
            assert_eq!(raster_sibling(&dir, path), None, "{path}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(is_svg("/a/B.SVG") && !is_svg("/a/b.svg.png"));
    }
}
