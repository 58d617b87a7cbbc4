//! What a page says about itself in its `<head>`, and the escaping that
//! keeps what users write inside the tag it belongs to.

use std::fmt::Write as _;

use serde_json::Value;

use super::SITE_NAME;

/// What a page says about itself in its `<head>`.
#[derive(Debug, Default)]
pub(super) struct Head {
    pub(super) title: String,
    pub(super) description: String,
    /// The site-relative path of the canonical URL.
    pub(super) canonical: String,
    /// Open Graph's `og:type`.
    pub(super) kind: &'static str,
    pub(super) image: Option<String>,
    pub(super) image_alt: String,
    /// The image's width and height in pixels, when known.
    pub(super) image_size: Option<(u32, u32)>,
    /// Extra `<meta property>` pairs (a product's price).
    pub(super) properties: Vec<(&'static str, String)>,
    pub(super) json_ld: Option<Value>,
    /// The URL of the image the page shows first and largest (a template's
    /// gallery), fetched with the page instead of after the app's scripts.
    pub(super) preload: Option<String>,
    /// `noindex` (not-found pages).
    pub(super) hidden: bool,
    /// Home's hero shown in the app's loading shell (`shell.rs`).
    pub(super) shell_hero: bool,
}

impl Head {
    pub(super) fn render(&self, site: &str) -> String {
        let title = html_escape(&self.title);
        let description = html_escape(&self.description);
        let url = html_escape(&format!("{site}{}", self.canonical));
        let mut tags = String::with_capacity(1024);
        let _ = write!(
            tags,
            "<title>{title}</title>\n\
             <meta name=\"description\" content=\"{description}\" />\n"
        );
        if self.hidden {
            tags.push_str("<meta name=\"robots\" content=\"noindex\" />\n");
        } else {
            let _ = writeln!(tags, "<link rel=\"canonical\" href=\"{url}\" />");
        }
        let card = if self.image.is_some() {
            "summary_large_image"
        } else {
            "summary"
        };
        let _ = write!(
            tags,
            "<meta property=\"og:site_name\" content=\"{}\" />\n\
             <meta property=\"og:type\" content=\"{}\" />\n\
             <meta property=\"og:title\" content=\"{title}\" />\n\
             <meta property=\"og:description\" content=\"{description}\" />\n\
             <meta property=\"og:url\" content=\"{url}\" />\n\
             <meta name=\"twitter:card\" content=\"{card}\" />\n\
             <meta name=\"twitter:title\" content=\"{title}\" />\n\
             <meta name=\"twitter:description\" content=\"{description}\" />\n",
            html_escape(SITE_NAME),
            self.kind,
        );
        if let Some(image) = &self.image {
            let image = html_escape(image);
            let alt = html_escape(&self.image_alt);
            let _ = write!(
                tags,
                "<meta property=\"og:image\" content=\"{image}\" />\n\
                 <meta property=\"og:image:alt\" content=\"{alt}\" />\n\
                 <meta name=\"twitter:image\" content=\"{image}\" />\n\
                 <meta name=\"twitter:image:alt\" content=\"{alt}\" />\n"
            );
            if let Some((width, height)) = self.image_size {
                let _ = write!(
                    tags,
                    "<meta property=\"og:image:width\" content=\"{width}\" />\n\
                     <meta property=\"og:image:height\" content=\"{height}\" />\n"
                );
            }
        }
        for (property, content) in &self.properties {
            let _ = writeln!(
                tags,
                "<meta property=\"{property}\" content=\"{}\" />",
                html_escape(content)
            );
        }
        if let Some(preload) = &self.preload {
            let _ = writeln!(
                tags,
                "<link rel=\"preload\" as=\"image\" href=\"{}\" fetchpriority=\"high\" />",
                html_escape(preload)
            );
        }
        if let Some(data) = &self.json_ld {
            let _ = writeln!(
                tags,
                "<script type=\"application/ld+json\">{}</script>",
                script_json(data)
            );
        }
        tags
    }
}

/// Rich text (Markdown) as plain words: markup characters dropped, white
/// space collapsed.
pub(super) fn plain(markdown: &str) -> String {
    markdown
        .chars()
        .map(|c| match c {
            '#' | '*' | '_' | '`' | '>' | '[' | ']' | '|' | '~' => ' ',
            c => c,
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` with white space collapsed, at most `max` characters (an ellipsis
/// ending a cut one).
pub(super) fn clip(text: &str, max: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= max {
        return text;
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    if let Some(space) = cut.rfind(' ')
        && space > max / 2
    {
        cut.truncate(space);
    }
    cut.push('…');
    cut
}

/// Text for HTML content and quoted attribute values (and XML).
pub(crate) use plinth_auth::html_escape;

/// JSON for inside `<script>`: no value can end the element or open a comment.
pub(super) fn script_json(value: &Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escaping_keeps_markup_out() {
        assert_eq!(
            html_escape("\"><script>alert('x')</script>&"),
            "&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"
        );
        let json = script_json(&json!({ "name": "</script><!--" }));
        assert!(!json.contains('<') && !json.contains('>'), "{json}");
        assert_eq!(
            serde_json::from_str::<Value>(&json).unwrap()["name"],
            "</script><!--"
        );
    }

    #[test]
    fn descriptions_are_clipped_at_a_word() {
        let long = "word ".repeat(100);
        let clipped = clip(&long, 160);
        assert!(clipped.chars().count() <= 160);
        assert!(clipped.ends_with("word…"), "{clipped}");
        assert_eq!(clip("  a\n b  ", 160), "a b");
        assert_eq!(plain("# Title\n**bold** [link]"), "Title bold link");
    }
}
