//! The built app's `index.html` as the pages' shell: its own title and
//! description taken out, cut where a page's tags go, read again when the
//! file changes (a rebuilt app names new assets).

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

/// `index.html` without its own `<title>` and description, cut before `</head>`.
#[derive(Debug)]
pub(super) struct Shell {
    before: String,
    after: String,
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
        Some(Self {
            before: html[..at].to_owned(),
            after: html[at..].to_owned(),
        })
    }

    pub(super) fn render(&self, head: &str) -> String {
        let mut page = String::with_capacity(self.before.len() + head.len() + self.after.len());
        page.push_str(&self.before);
        page.push_str(head);
        page.push_str(&self.after);
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
        let page = shell.render("<title>New</title>");
        assert!(!page.contains("Old"), "{page}");
        assert!(page.contains("<script src=\"/assets/a.js\"></script><title>New</title></head>"));
        assert!(Shell::parse("<div id=root></div>").is_none());
    }
}
