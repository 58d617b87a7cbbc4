//! The built app's `index.html` as the pages' shell: its own title and
//! description taken out, cut where a page's tags go, read again when the
//! file changes (a rebuilt app names new assets). Its loading shell (the
//! header and skeleton cards in `#root` that paint before any script) has
//! Home's hero hidden; the home page shows it, so that Home's headline is
//! on screen with the page itself.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// The app's `index.html` split where the page's tags go, and when it was read.
pub(super) struct ShellFile {
    path: PathBuf,
    current: Mutex<(Option<SystemTime>, Arc<Shell>)>,
}

impl ShellFile {
    pub(super) fn open(path: &Path) -> Option<Self> {
        let (modified, shell) = read_shell(path)?;
        Some(Self {
            path: path.to_owned(),
            current: Mutex::new((modified, Arc::new(shell))),
        })
    }

    /// The shell, read again when the file's modification time changed; the
    /// last good one when it cannot be read now.
    pub(super) fn get(&self) -> Arc<Shell> {
        let modified = std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .ok();
        let mut current = match self.current.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if modified.is_some()
            && modified != current.0
            && let Some(fresh) = read_shell(&self.path)
        {
            *current = (fresh.0, Arc::new(fresh.1));
        }
        current.1.clone()
    }
}

pub(super) fn read_shell(path: &Path) -> Option<(Option<SystemTime>, Shell)> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let html = std::fs::read_to_string(path).ok()?;
    Some((modified, Shell::parse(&html)?))
}

/// Home's hero in the loading shell of `index.html`, hidden, and shown.
const HIDDEN_HERO: &str = "<section class=\"shell-hero\" hidden data-shell-hero>";
const SHOWN_HERO: &str = "<section class=\"shell-hero\" data-shell-hero>";

/// `index.html` without its own `<title>` and description, cut before `</head>`.
#[derive(Debug)]
pub(super) struct Shell {
    before: String,
    after: String,
    /// `after` with Home's hero shown, when the file has one.
    after_with_hero: Option<String>,
}

impl Shell {
    pub(super) fn parse(html: &str) -> Option<Self> {
        let mut html = html.to_owned();
        if let (Some(start), Some(end)) = (html.find("<title>"), html.find("</title>"))
            && start < end
        {
            html.replace_range(start..end + "</title>".len(), "");
        }
        if let Some(start) = html.find("<meta name=\"description\"")
            && let Some(len) = html[start..].find('>')
        {
            html.replace_range(start..=start + len, "");
        }
        let at = html.find("</head>")?;
        let after = html[at..].to_owned();
        let after_with_hero = after
            .contains(HIDDEN_HERO)
            .then(|| after.replacen(HIDDEN_HERO, SHOWN_HERO, 1));
        Some(Self {
            before: html[..at].to_owned(),
            after,
            after_with_hero,
        })
    }

    /// The page with `head`'s tags; with Home's hero shown in the loading
    /// shell when `hero`.
    pub(super) fn render(&self, head: &str, hero: bool) -> String {
        let after = match &self.after_with_hero {
            Some(shown) if hero => shown,
            _ => &self.after,
        };
        let mut page = String::with_capacity(self.before.len() + head.len() + after.len());
        page.push_str(&self.before);
        page.push_str(head);
        page.push_str(after);
        page
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_loses_its_title_and_description_and_takes_the_page_s() {
        let shell = Shell::parse(
            "<html><head><meta charset=\"UTF-8\" />\n<meta name=\"description\" content=\"Old\" />\n\
             <title>Old title</title><script src=\"/assets/a.js\"></script></head><body></body></html>",
        )
        .unwrap();
        let page = shell.render("<title>New</title>", true);
        assert!(!page.contains("Old"), "{page}");
        assert!(page.contains("<script src=\"/assets/a.js\"></script><title>New</title></head>"));
        assert!(Shell::parse("<div id=root></div>").is_none());
    }

    #[test]
    fn home_s_hero_in_the_loading_shell_shows_on_the_home_page_only() {
        let shell = Shell::parse(&format!(
            "<html><head></head><body><div id=\"root\">{HIDDEN_HERO}<h1>Hi</h1></section></div></body></html>"
        ))
        .unwrap();
        let home = shell.render("", true);
        assert!(
            home.contains(SHOWN_HERO) && !home.contains(" hidden"),
            "{home}"
        );
        let other = shell.render("", false);
        assert!(other.contains(HIDDEN_HERO), "{other}");
        // The real index.html has it, as the server expects it.
        let index = include_str!("../../../../app/index.html");
        assert_eq!(index.matches(HIDDEN_HERO).count(), 1);
        let index = Shell::parse(index).unwrap();
        assert!(index.render("", true).contains(SHOWN_HERO));
    }
}
