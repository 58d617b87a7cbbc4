//! The share image of every server-filled page (issue 44 item 10): each
//! page kind has an absolute `og:image` that social sites can show (a
//! template's preview, a creator's avatar, else the site's default PNG;
//! never an SVG), a large Twitter card, and nothing a creator wrote escapes
//! its attribute. Against a real PostgreSQL, as the server serves the pages.

#![allow(clippy::unwrap_used)]

mod support;

use std::path::PathBuf;

use plinth_db::JwtSecret;
use plinth_db::testing::TestDb;
use plinth_marketplace::{FunctionsConfig, pages_router};
use reqwest::StatusCode;
use uuid::Uuid;

const SECRET: &str = "share-images-tests-secret-of-at-least-32-chars";
const API: &str = "http://api.test";
const DEFAULT: &str = "http://app.test/share-image.png";
const INDEX_HTML: &str = "<!doctype html><html><head><meta charset=\"UTF-8\" />\
<title>The app</title></head><body><div id=\"root\"></div></body></html>";

struct Site {
    url: String,
    dir: PathBuf,
    test_db: TestDb,
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The pages of an app whose files are `demo/planner.png` (standing for
/// `demo/planner.svg`) and no PNG for `demo/wiki.svg`.
async fn spawn_site() -> Site {
    let test_db = TestDb::new(&support::sets()).await;
    let dir = std::env::temp_dir().join(format!("plinth-share-images-{}", Uuid::new_v4()));
    std::fs::create_dir_all(dir.join("demo")).unwrap();
    std::fs::write(dir.join("index.html"), INDEX_HTML).unwrap();
    std::fs::write(dir.join("demo/planner.svg"), "<svg/>").unwrap();
    std::fs::write(dir.join("demo/planner.png"), b"\x89PNG").unwrap();
    std::fs::write(dir.join("demo/wiki.svg"), "<svg/>").unwrap();
    let config = FunctionsConfig {
        api_external_url: API.into(),
        ..support::config()
    };
    let jwt = JwtSecret::new(SECRET).unwrap();
    let functions = support::functions(&test_db.db, jwt, config);
    let router = pages_router(functions, &dir.join("index.html")).unwrap();
    let (listener, url) = support::listen().await;
    support::serve(listener, router);
    Site { url, dir, test_db }
}

struct Page {
    status: StatusCode,
    html: String,
}

impl Page {
    fn meta(&self, attr: &str, name: &str) -> Option<String> {
        let needle = format!("<meta {attr}=\"{name}\" content=\"");
        assert!(
            self.html.matches(&needle).count() <= 1,
            "{name} twice: {}",
            self.html
        );
        let at = self.html.find(&needle)? + needle.len();
        let end = self.html[at..].find('"')?;
        Some(
            self.html[at..at + end]
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&"),
        )
    }

    fn image(&self) -> String {
        let image = self.meta("property", "og:image").expect("an og:image");
        assert_eq!(
            self.meta("name", "twitter:image").as_deref(),
            Some(image.as_str())
        );
        assert_eq!(
            self.meta("name", "twitter:card").as_deref(),
            Some("summary_large_image")
        );
        assert!(
            image.starts_with("http://") || image.starts_with("https://"),
            "absolute: {image}"
        );
        assert!(!image.to_ascii_lowercase().contains(".svg"), "{image}");
        image
    }

    /// The site's default image, with its size and alternative text.
    fn assert_default_image(&self) {
        assert_eq!(self.image(), DEFAULT, "{}", self.html);
        assert_eq!(
            self.meta("property", "og:image:width").as_deref(),
            Some("1200")
        );
        assert_eq!(
            self.meta("property", "og:image:height").as_deref(),
            Some("630")
        );
        assert_eq!(
            self.meta("property", "og:image:alt").as_deref(),
            Some("Plinth Templates: templates for your workspace")
        );
    }
}

async fn fetch(site: &Site, path: &str) -> Page {
    let response = reqwest::get(format!("{}{path}", site.url)).await.unwrap();
    Page {
        status: response.status(),
        html: response.text().await.unwrap(),
    }
}

async fn user(site: &Site, name: &str, username: &str, avatar: Option<&str>) -> Uuid {
    let id = Uuid::new_v4();
    let owner = &site.test_db.db.owner;
    sqlx::query(
        "insert into auth.users (instance_id, id, aud, role, email, raw_user_meta_data, created_at, updated_at)
         values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2,
                 jsonb_build_object('display_name', $3::text), now(), now())",
    )
    .bind(id)
    .bind(format!("{username}@example.test"))
    .bind(name)
    .execute(owner)
    .await
    .unwrap();
    sqlx::query("update public.profiles set username = $2, avatar_url = $3 where id = $1")
        .bind(id)
        .bind(username)
        .bind(avatar)
        .execute(owner)
        .await
        .unwrap();
    id
}

/// A published template of `creator` whose previews are `previews`.
async fn template(site: &Site, creator: Uuid, title: &str, previews: &[&str]) -> Uuid {
    sqlx::query_scalar(
        "insert into public.templates (user_id, title, description, price, price_in_cents, category_id, tags,
                                       preview_image_url, preview_images)
         values ($1, $2, 'A template for tests', 0, 0,
                 (select id from public.categories where slug = 'productivity'), array['test'],
                 $3, $4)
         returning id",
    )
    .bind(creator)
    .bind(title)
    .bind(previews.first().copied().unwrap_or(""))
    .bind(previews.iter().skip(1).copied().collect::<Vec<_>>())
    .fetch_one(&site.test_db.db.owner)
    .await
    .unwrap()
}

#[tokio::test]
async fn the_lists_and_the_home_page_share_the_default_image() {
    let site = spawn_site().await;
    for (path, canonical) in [
        ("/", "http://app.test/"),
        ("/discover", "http://app.test/discover"),
        ("/categories", "http://app.test/categories"),
        ("/creators", "http://app.test/creators"),
        (
            "/category/productivity",
            "http://app.test/category/productivity",
        ),
    ] {
        let page = fetch(&site, path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        page.assert_default_image();
        assert_eq!(
            page.meta("property", "og:url").as_deref(),
            Some(canonical),
            "{path}"
        );
        assert!(page.html.contains("<div id=\"root\"></div>"), "{path}");
    }
    // A not-found page still has a card (with noindex).
    let page = fetch(&site, "/category/no-such-category").await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    page.assert_default_image();

    // A list the app's routes.json no longer has is the app's not-found page.
    std::fs::write(site.dir.join("routes.json"), r#"["/", "/category/:slug"]"#).unwrap();
    assert_eq!(
        fetch(&site, "/discover").await.status,
        StatusCode::NOT_FOUND
    );
    std::fs::write(site.dir.join("routes.json"), r#"["/", "/Discover/"]"#).unwrap();
    assert_eq!(fetch(&site, "/discover").await.status, StatusCode::OK);
    assert_eq!(
        fetch(&site, "/creators").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn a_template_shares_its_preview_as_a_raster_image_or_the_default() {
    let site = spawn_site().await;
    let creator = user(&site, "Ada", "ada", None).await;
    let card = "?width=1200&height=630&resize=cover";

    // A stored preview: its rendition, every path segment encoded, the
    // query's `&` escaped in the attribute, the title escaped in the alt.
    let stored = template(
        &site,
        creator,
        "Plan \"<b>\" & Do",
        &["previews/a \"b\"<c>.png"],
    )
    .await;
    let page = fetch(&site, &format!("/template/{stored}")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(
        page.image(),
        format!(
            "{API}/storage/v1/render/image/public/templates/previews/a%20%22b%22%3Cc%3E.png{card}"
        )
    );
    assert!(
        page.html
            .contains("a%20%22b%22%3Cc%3E.png?width=1200&amp;height=630"),
        "{}",
        page.html
    );
    assert!(!page.html.contains("<b>"), "{}", page.html);
    assert_eq!(
        page.meta("property", "og:image:alt").as_deref(),
        Some("Preview of Plan \"<b>\" & Do")
    );
    assert_eq!(
        page.meta("property", "og:image:width").as_deref(),
        Some("1200")
    );

    // The demo's SVG preview: the PNG beside it in the app.
    let demo = template(&site, creator, "Planner", &["/demo/planner.svg"]).await;
    let page = fetch(&site, &format!("/template/{demo}")).await;
    assert_eq!(page.image(), "http://app.test/demo/planner.png");
    assert_eq!(
        page.meta("property", "og:image:alt").as_deref(),
        Some("Preview of Planner")
    );
    // ... which the gallery still shows (and the page preloads) as it is.
    assert!(
        page.html
            .contains("<link rel=\"preload\" as=\"image\" href=\"/demo/planner.svg\""),
        "{}",
        page.html
    );

    // SVGs without a PNG, stored or elsewhere, and no preview at all: the default.
    for previews in [
        vec!["/demo/wiki.svg"],
        vec!["https://cdn.example/preview.SVG?v=1"],
        vec!["previews/drawing.svg"],
        vec![],
        vec!["", "javascript:alert(1)"],
    ] {
        let id = template(&site, creator, "Other", &previews).await;
        let page = fetch(&site, &format!("/template/{id}")).await;
        assert_eq!(page.status, StatusCode::OK);
        page.assert_default_image();
        assert!(!page.html.contains("javascript:"), "{}", page.html);
    }
    // An external raster preview passes as it is.
    let external = template(&site, creator, "External", &["https://cdn.example/p.jpg"]).await;
    let page = fetch(&site, &format!("/template/{external}")).await;
    assert_eq!(page.image(), "https://cdn.example/p.jpg");
}

#[tokio::test]
async fn a_profile_shares_its_avatar_or_the_default() {
    let site = spawn_site().await;
    let with = user(&site, "Grace", "grace", Some("me/photo.png")).await;
    user(&site, "Linus", "linus", None).await;
    user(&site, "Vector", "vector", Some("me/drawing.svg")).await;

    let page = fetch(&site, "/profile/grace").await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(
        page.image(),
        format!(
            "{API}/storage/v1/render/image/public/avatars/me/photo.png?width=400&height=400&resize=cover"
        )
    );
    assert_eq!(
        page.meta("property", "og:image:width").as_deref(),
        Some("400")
    );
    assert_eq!(
        page.meta("property", "og:image:alt").as_deref(),
        Some("Grace's avatar")
    );
    let page = fetch(&site, &format!("/profile/{with}")).await;
    assert!(page.image().contains("/avatars/me/photo.png"));

    for path in ["/profile/linus", "/profile/vector", "/profile/nobody-here"] {
        let page = fetch(&site, path).await;
        page.assert_default_image();
    }
}
