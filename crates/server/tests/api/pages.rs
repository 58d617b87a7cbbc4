//! The shareable pages filled on the server, fetched as a crawler or a link
//! preview fetches them: plain HTTP, no JavaScript. Each page must carry its
//! own title, description, canonical URL, Open Graph and Twitter tags (and
//! JSON-LD for templates) inside the built app's `index.html`; what the anon
//! role may not read is a 404; nothing a creator writes escapes its tag.

use std::collections::BTreeSet;

use reqwest::StatusCode;
use serde_json::Value;
use uuid::Uuid;

use crate::helpers::{
    TEST_API_URL, TEST_SITE_URL, TestApp, spawn_app_serving, spawn_app_serving_routes,
};
use crate::marketplace_support::{
    category_id, create_user, load_demo, owner_pool, published_template,
};

/// A built app's `index.html` as vite writes it.
const INDEX_HTML: &str = "<!doctype html>\n<html lang=\"en-US\">\n  <head>\n    \
<meta charset=\"UTF-8\" />\n    <meta name=\"viewport\" content=\"width=device-width, initial-scale=1.0\" />\n    \
<meta name=\"description\" content=\"The app's own description.\" />\n    \
<title>The app's own title</title>\n    \
<script type=\"module\" crossorigin src=\"/assets/index-abc123.js\"></script>\n  </head>\n  \
<body>\n    <div id=\"root\"></div>\n  </body>\n</html>\n";

struct Page {
    status: StatusCode,
    csp: Option<String>,
    html: String,
}

impl Page {
    /// The `content` of `<meta {attr}="{name}" content="...">`, unescaped
    /// for `&amp;` (the only entity the values below contain besides quotes).
    fn meta(&self, attr: &str, name: &str) -> Option<String> {
        let needle = format!("<meta {attr}=\"{name}\" content=\"");
        let at = self.html.find(&needle)? + needle.len();
        let end = self.html[at..].find('"')?;
        Some(unescape(&self.html[at..at + end]))
    }

    fn property(&self, name: &str) -> Option<String> {
        self.meta("property", name)
    }

    fn name(&self, name: &str) -> Option<String> {
        self.meta("name", name)
    }

    fn title(&self) -> Option<String> {
        let at = self.html.find("<title>")? + "<title>".len();
        let end = self.html[at..].find("</title>")?;
        Some(unescape(&self.html[at..at + end]))
    }

    fn canonical(&self) -> Option<String> {
        self.link("canonical")
    }

    /// The `href` of `<link rel="{rel}" ...>`.
    fn link(&self, rel: &str) -> Option<String> {
        let needle = format!("<link rel=\"{rel}\" ");
        let at = self.html.find(&needle)? + needle.len();
        let at = at + self.html[at..].find("href=\"")? + "href=\"".len();
        let end = self.html[at..].find('"')?;
        Some(unescape(&self.html[at..at + end]))
    }

    fn json_ld(&self) -> Option<Value> {
        let needle = "<script type=\"application/ld+json\">";
        let at = self.html.find(needle)? + needle.len();
        let end = self.html[at..].find("</script>")?;
        Some(serde_json::from_str(&self.html[at..at + end]).expect("JSON-LD parses"))
    }

    /// Still the app: its root element and its script, once.
    fn assert_is_the_app(&self) {
        assert!(
            self.html.contains("<div id=\"root\"></div>"),
            "{}",
            self.html
        );
        assert_eq!(
            self.html.matches("/assets/index-abc123.js").count(),
            1,
            "{}",
            self.html
        );
        assert!(!self.html.contains("The app's own"), "{}", self.html);
        assert_eq!(self.html.matches("<title>").count(), 1, "{}", self.html);
    }
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

async fn fetch(app: &TestApp, path: &str) -> Page {
    let response = reqwest::get(format!("{}{path}", app.url)).await.unwrap();
    let status = response.status();
    let csp = response
        .headers()
        .get("content-security-policy")
        .map(|v| v.to_str().unwrap().to_owned());
    let kind = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(kind.starts_with("text/html"), "{path}: {kind}");
    let html = response.text().await.unwrap();
    Page { status, csp, html }
}

async fn set_username(app: &TestApp, user: Uuid, username: &str) {
    sqlx::query("update public.profiles set username = $2 where id = $1")
        .bind(user)
        .bind(username)
        .execute(owner_pool(app))
        .await
        .unwrap();
}

async fn rate(app: &TestApp, template: Uuid, rating: i16) {
    let rater = create_user(app, &format!("{}@rater.test", Uuid::new_v4()), "Rater").await;
    sqlx::query(
        "insert into public.template_ratings (template_id, user_id, rating) values ($1, $2, $3)",
    )
    .bind(template)
    .bind(rater)
    .bind(rating)
    .execute(owner_pool(app))
    .await
    .unwrap();
}

#[tokio::test]
async fn a_template_page_carries_its_title_card_and_product_data() {
    let app = spawn_app_serving(INDEX_HTML).await;
    let creator = create_user(&app, "ada@example.test", "Ada Lovelace").await;
    set_username(&app, creator, "ada").await;
    let template = published_template(
        &app,
        creator,
        "Habit Tracker",
        category_id(&app, "productivity").await,
        12.5,
    )
    .await;
    sqlx::query(
        "update public.templates set description = $2, preview_image_url = $3 where id = $1",
    )
    .bind(template)
    .bind("Track habits daily & see streaks.")
    .bind("previews/1700000000-abc def.png")
    .execute(owner_pool(&app))
    .await
    .unwrap();
    rate(&app, template, 5).await;
    rate(&app, template, 4).await;

    let page = fetch(&app, &format!("/template/{template}")).await;
    assert_eq!(page.status, StatusCode::OK);
    page.assert_is_the_app();
    assert!(page.csp.is_some(), "the page keeps the app's CSP");
    let url = format!("{TEST_SITE_URL}/template/{template}");
    assert_eq!(page.title().unwrap(), "Habit Tracker — Plinth Templates");
    assert_eq!(
        page.name("description").unwrap(),
        "Track habits daily & see streaks."
    );
    assert_eq!(page.canonical().unwrap(), url);
    assert_eq!(page.property("og:url").unwrap(), url);
    assert_eq!(page.property("og:type").unwrap(), "product");
    assert_eq!(
        page.property("og:title").unwrap(),
        "Habit Tracker — Plinth Templates"
    );
    assert_eq!(page.property("og:site_name").unwrap(), "Plinth Templates");
    // The preview through a storage rendition, its path segments encoded.
    let image = format!(
        "{TEST_API_URL}/storage/v1/render/image/public/templates/previews/1700000000-abc%20def.png?width=1200&height=630&resize=cover"
    );
    assert_eq!(page.property("og:image").unwrap(), image);
    assert_eq!(page.name("twitter:image").unwrap(), image);
    assert_eq!(page.name("twitter:card").unwrap(), "summary_large_image");
    assert_eq!(page.property("product:price:amount").unwrap(), "12.50");
    assert_eq!(page.property("product:price:currency").unwrap(), "USD");
    assert!(page.name("robots").is_none());
    // The gallery's first image, preloaded as the app will ask for it (on
    // the page's own origin, storage-js's encodeURI, 1280 wide).
    assert_eq!(
        page.link("preload").unwrap(),
        "/storage/v1/render/image/public/templates/previews/1700000000-abc%20def.png?width=1280&resize=cover"
    );
    assert!(
        page.html
            .contains("<link rel=\"preload\" as=\"image\" href=\"/storage/v1/render/image/public/templates/previews/1700000000-abc%20def.png?width=1280&amp;resize=cover\" fetchpriority=\"high\" />"),
        "{}",
        page.html
    );

    let product = page.json_ld().unwrap();
    assert_eq!(product["@type"], "Product");
    assert_eq!(product["name"], "Habit Tracker");
    assert_eq!(product["url"], url);
    assert_eq!(product["image"][0], image);
    assert_eq!(product["brand"]["name"], "Ada Lovelace");
    assert_eq!(product["category"], "Productivity");
    assert_eq!(product["offers"]["price"], "12.50");
    assert_eq!(product["offers"]["priceCurrency"], "USD");
    assert_eq!(product["aggregateRating"]["ratingValue"], 4.5);
    assert_eq!(product["aggregateRating"]["ratingCount"], 2);

    // A free template without ratings has no rating to show, and a price of 0.
    let free = published_template(
        &app,
        creator,
        "Free Planner",
        category_id(&app, "productivity").await,
        0.0,
    )
    .await;
    let page = fetch(&app, &format!("/template/{free}")).await;
    let product = page.json_ld().unwrap();
    assert_eq!(product["offers"]["price"], "0.00");
    assert!(product.get("aggregateRating").is_none(), "{product}");
    // No preview: the site's default share image (issue 44 item 10).
    assert_eq!(
        page.property("og:image").unwrap(),
        format!("{TEST_SITE_URL}/share-image.png")
    );
    assert_eq!(page.name("twitter:card").unwrap(), "summary_large_image");
    assert!(page.link("preload").is_none());

    // Without a main preview the gallery starts at the first of the others
    // (an empty main preview counts as none, as in the app).
    sqlx::query(
        "update public.templates set preview_image_url = '', preview_images = $2 where id = $1",
    )
    .bind(free)
    .bind(vec!["", "/demo/planner.svg", "previews/second.png"])
    .execute(owner_pool(&app))
    .await
    .unwrap();
    let page = fetch(&app, &format!("/template/{free}")).await;
    assert_eq!(page.link("preload").unwrap(), "/demo/planner.svg");
    // Social sites do not show SVG: without a PNG beside it in the app,
    // the card shows the default image.
    assert_eq!(
        page.property("og:image").unwrap(),
        format!("{TEST_SITE_URL}/share-image.png")
    );
}

#[tokio::test]
async fn what_the_anon_role_cannot_read_is_a_404_with_the_app() {
    let app = spawn_app_serving(INDEX_HTML).await;
    let creator = create_user(&app, "grace@example.test", "Grace").await;
    let hidden = published_template(
        &app,
        creator,
        "Hidden",
        category_id(&app, "productivity").await,
        3.0,
    )
    .await;
    sqlx::query("update public.templates set is_published = false where id = $1")
        .bind(hidden)
        .execute(owner_pool(&app))
        .await
        .unwrap();
    let too_long = "a".repeat(65);
    for path in [
        format!("/template/{hidden}"),
        format!("/template/{}", Uuid::new_v4()),
        "/template/not-a-uuid".to_owned(),
        "/template/%27%20or%201=1--".to_owned(),
        "/profile/nobody-here".to_owned(),
        format!("/profile/{}", Uuid::new_v4()),
        format!("/profile/{too_long}"),
        "/category/no-such-category".to_owned(),
    ] {
        let page = fetch(&app, &path).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
        page.assert_is_the_app();
        assert_eq!(page.name("robots").as_deref(), Some("noindex"), "{path}");
        assert!(page.canonical().is_none(), "{path}");
        assert!(!page.html.contains("Hidden"), "{path}");
    }
    assert_eq!(
        fetch(&app, &format!("/template/{hidden}"))
            .await
            .title()
            .unwrap(),
        "Template Not Found — Plinth Templates"
    );
}

#[tokio::test]
async fn nothing_a_creator_writes_escapes_its_tag() {
    let app = spawn_app_serving(INDEX_HTML).await;
    let creator = create_user(&app, "mallory@example.test", "\"><script>alert(1)</script>").await;
    set_username(&app, creator, "mallory").await;
    let title = "</script><script>x()";
    let description = "\"><img src=x onerror=alert(2)> & </title><!--";
    let template = published_template(
        &app,
        creator,
        title,
        category_id(&app, "productivity").await,
        1.0,
    )
    .await;
    sqlx::query(
        "update public.templates set description = $2, preview_image_url = $3 where id = $1",
    )
    .bind(template)
    .bind(description)
    .bind("javascript:alert(3)")
    .execute(owner_pool(&app))
    .await
    .unwrap();
    sqlx::query("update public.profiles set bio = $2, avatar_url = $3 where id = $1")
        .bind(creator)
        .bind(description)
        .bind("../../auth/v1/admin/users")
        .execute(owner_pool(&app))
        .await
        .unwrap();

    let page = fetch(&app, &format!("/template/{template}")).await;
    assert_eq!(page.status, StatusCode::OK);
    page.assert_is_the_app();
    for raw in [
        "<script>x()",
        "<img src=x",
        "<script>alert",
        "</title><!--",
        "javascript:",
    ] {
        assert!(!page.html.contains(raw), "{raw} in {}", page.html);
    }
    // One script of the app, one of data: nothing else opened one.
    assert_eq!(page.html.matches("<script").count(), 2, "{}", page.html);
    assert_eq!(page.title().unwrap(), format!("{title} — Plinth Templates"));
    assert_eq!(page.name("description").unwrap(), description);
    let product = page.json_ld().unwrap();
    assert_eq!(product["name"], title);
    assert_eq!(product["brand"]["name"], "\"><script>alert(1)</script>");
    assert!(product.get("image").is_none(), "no javascript: image");
    assert!(page.link("preload").is_none(), "no javascript: preload");

    let page = fetch(&app, "/profile/mallory").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(!page.html.contains("<img src=x"), "{}", page.html);
    assert!(!page.html.contains("<script>alert"), "{}", page.html);
    assert_eq!(
        page.property("og:image").unwrap(),
        format!("{TEST_SITE_URL}/share-image.png"),
        "a path out of the bucket is no image: the default"
    );
}

#[tokio::test]
async fn profile_category_and_home_pages_carry_their_tags() {
    let app = spawn_app_serving(INDEX_HTML).await;
    let creator = create_user(&app, "linus@example.test", "Linus").await;
    set_username(&app, creator, "linus").await;
    sqlx::query("update public.profiles set avatar_url = $2 where id = $1")
        .bind(creator)
        .bind(format!(
            "http://127.0.0.1:9/storage/v1/object/public/avatars/{creator}/me.png"
        ))
        .execute(owner_pool(&app))
        .await
        .unwrap();
    let productivity = category_id(&app, "productivity").await;
    published_template(&app, creator, "Kanban", productivity, 0.0).await;
    published_template(&app, creator, "Journal", productivity, 2.0).await;

    for path in [
        "/profile/linus",
        &format!("/profile/{creator}"),
        "/profile/LINUS",
    ] {
        let page = fetch(&app, path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        page.assert_is_the_app();
        assert_eq!(page.title().unwrap(), "Linus (@linus) — Plinth Templates");
        assert_eq!(
            page.name("description").unwrap(),
            "Linus has 2 templates on Plinth Templates."
        );
        assert_eq!(
            page.canonical().unwrap(),
            format!("{TEST_SITE_URL}/profile/linus")
        );
        assert_eq!(page.property("og:type").unwrap(), "profile");
        assert_eq!(
            page.property("og:image").unwrap(),
            format!(
                "{TEST_API_URL}/storage/v1/render/image/public/avatars/{creator}/me.png?width=400&height=400&resize=cover"
            )
        );
        assert_eq!(page.json_ld().unwrap()["mainEntity"]["name"], "Linus");
    }

    let page = fetch(&app, "/category/productivity").await;
    assert_eq!(page.status, StatusCode::OK);
    page.assert_is_the_app();
    assert_eq!(
        page.title().unwrap(),
        "Productivity templates — Plinth Templates"
    );
    assert_eq!(
        page.canonical().unwrap(),
        format!("{TEST_SITE_URL}/category/productivity")
    );
    assert!(!page.name("description").unwrap().is_empty());

    let page = fetch(&app, "/").await;
    assert_eq!(page.status, StatusCode::OK);
    page.assert_is_the_app();
    assert_eq!(
        page.title().unwrap(),
        "Plinth Templates — templates for your workspace"
    );
    assert_eq!(page.canonical().unwrap(), format!("{TEST_SITE_URL}/"));
    assert_eq!(page.json_ld().unwrap()["@type"], "WebSite");
    assert!(page.csp.is_some());

    // Every other route is the app as built (its own tags), with the CSP;
    // the app's files are served as they are.
    let page = fetch(&app, "/dashboard/templates?tab=draft").await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(page.title().unwrap(), "The app's own title");
    assert!(page.csp.is_some());
}

#[tokio::test]
async fn the_sitemap_lists_exactly_the_published_templates() {
    let app = spawn_app_serving(INDEX_HTML).await;
    load_demo(&app).await;
    let creator = create_user(&app, "hidden@example.test", "Hidden Creator").await;
    set_username(&app, creator, "hidden-creator").await;
    let unpublished = published_template(
        &app,
        creator,
        "Withdrawn",
        category_id(&app, "productivity").await,
        1.0,
    )
    .await;
    sqlx::query("update public.templates set is_published = false where id = $1")
        .bind(unpublished)
        .execute(owner_pool(&app))
        .await
        .unwrap();

    let response = reqwest::get(format!("{}/sitemap.xml", app.url))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/xml")
    );
    let xml = response.text().await.unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    let locs: Vec<&str> = xml
        .split("<loc>")
        .skip(1)
        .map(|rest| &rest[..rest.find("</loc>").unwrap()])
        .collect();
    let listed: BTreeSet<String> = locs
        .iter()
        .filter_map(|loc| loc.strip_prefix(&format!("{TEST_SITE_URL}/template/")))
        .map(str::to_owned)
        .collect();
    let published: BTreeSet<String> =
        sqlx::query_scalar::<_, Uuid>("select id from public.templates where is_published")
            .fetch_all(owner_pool(&app))
            .await
            .unwrap()
            .into_iter()
            .map(|id| id.to_string())
            .collect();
    assert!(published.len() >= 5, "the demo has published templates");
    assert_eq!(listed, published);
    assert!(!listed.contains(&unpublished.to_string()));
    let template_locs = locs.iter().filter(|l| l.contains("/template/")).count();
    assert_eq!(template_locs, published.len(), "each template once");

    // Every category, and the creators of published templates only.
    let categories: Vec<String> =
        sqlx::query_scalar("select slug from public.categories order by slug")
            .fetch_all(owner_pool(&app))
            .await
            .unwrap();
    for slug in &categories {
        assert!(
            locs.contains(&format!("{TEST_SITE_URL}/category/{slug}").as_str()),
            "{slug}"
        );
    }
    assert!(locs.contains(&format!("{TEST_SITE_URL}/").as_str()));
    assert!(
        !xml.contains("hidden-creator"),
        "no published template, no entry"
    );
    let creators: i64 = sqlx::query_scalar(
        "select count(distinct user_id) from public.templates where is_published",
    )
    .fetch_one(owner_pool(&app))
    .await
    .unwrap();
    assert_eq!(
        locs.iter().filter(|l| l.contains("/profile/")).count() as i64,
        creators
    );

    let robots = reqwest::get(format!("{}/robots.txt", app.url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        robots.contains(&format!("Sitemap: {TEST_SITE_URL}/sitemap.xml")),
        "{robots}"
    );
    assert!(
        robots.lines().any(|l| l == "Disallow: /dashboard"),
        "{robots}"
    );
    assert!(
        robots.lines().any(|l| l == "Disallow: /rest/v1/"),
        "{robots}"
    );
}

#[tokio::test]
async fn an_unreachable_database_is_a_503_with_the_app_to_retry_in() {
    let app = spawn_app_serving(INDEX_HTML).await;
    app.test_db.db.api.close().await;
    for path in [
        format!("/template/{}", Uuid::new_v4()),
        "/profile/linus".into(),
    ] {
        let response = reqwest::get(format!("{}{path}", app.url)).await.unwrap();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE, "{path}");
        assert!(response.headers().contains_key("retry-after"), "{path}");
        let page = response.text().await.unwrap();
        assert!(page.contains("<div id=\"root\"></div>"), "{page}");
        assert!(
            page.contains("<meta name=\"robots\" content=\"noindex\" />"),
            "{page}"
        );
    }
    let response = reqwest::get(format!("{}/sitemap.xml", app.url))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(response.headers().contains_key("retry-after"));
}

#[tokio::test]
async fn the_app_s_files_travel_gzipped_and_its_hashed_assets_are_kept_for_a_year() {
    let app = spawn_app_serving(INDEX_HTML).await;
    let script =
        "export function render(items) { return items.map((item) => item.title) }\n".repeat(200);
    std::fs::create_dir(app.app_dir().join("assets")).unwrap();
    std::fs::write(app.app_dir().join("assets/index-abc123.js"), &script).unwrap();
    let client = reqwest::Client::new();

    let response = client
        .get(format!("{}/assets/index-abc123.js", app.url))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-encoding"], "gzip");
    assert_eq!(
        response.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert!(response.headers().contains_key("content-security-policy"));
    let body = response.bytes().await.unwrap();
    assert_eq!(&body[..2], &[0x1f, 0x8b], "a gzip stream");
    assert!(
        body.len() * 5 < script.len(),
        "{} of {}",
        body.len(),
        script.len()
    );

    // Without Accept-Encoding: the file as it is.
    let response = client
        .get(format!("{}/assets/index-abc123.js", app.url))
        .send()
        .await
        .unwrap();
    assert!(response.headers().get("content-encoding").is_none());
    assert_eq!(response.text().await.unwrap(), script);

    // A missing asset falls back to the app's page, which is never kept.
    let response = client
        .get(format!("{}/assets/index-gone.js", app.url))
        .send()
        .await
        .unwrap();
    assert!(
        response
            .headers()
            .get("cache-control")
            .is_none_or(|v| !v.to_str().unwrap().contains("immutable"))
    );
    // The server-filled pages are compressed too, and not kept.
    let response = client
        .get(format!("{}/", app.url))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-encoding"], "gzip");
    assert_eq!(response.headers()["cache-control"], "no-cache");
}

#[tokio::test]
async fn paths_outside_the_app_s_routes_answer_404_with_the_app() {
    let app = spawn_app_serving_routes(
        INDEX_HTML,
        r#"["/", "/discover", "/category/:slug", "/dashboard", "/dashboard/templates/edit/:id"]"#,
    )
    .await;
    std::fs::write(app.app_dir().join("favicon.svg"), "<svg/>").unwrap();
    let client = reqwest::Client::new();
    let get = |path: &str| client.get(format!("{}{path}", app.url)).send();
    for (path, status) in [
        ("/discover", StatusCode::OK),
        ("/Discover/", StatusCode::OK),
        ("/dashboard", StatusCode::OK),
        ("/dashboard/templates/edit/42", StatusCode::OK),
        ("/favicon.svg", StatusCode::OK),
        ("/nowhere", StatusCode::NOT_FOUND),
        ("/dashboard/nowhere", StatusCode::NOT_FOUND),
        ("/discover/more", StatusCode::NOT_FOUND),
        ("/assets/index-gone.js", StatusCode::NOT_FOUND),
    ] {
        let response = get(path).await.unwrap();
        assert_eq!(response.status(), status, "{path}");
        if path != "/favicon.svg" {
            // Always the app, which shows the page or its not-found screen.
            assert!(
                response.headers()["content-type"]
                    .to_str()
                    .unwrap()
                    .starts_with("text/html"),
                "{path}"
            );
            assert!(response.text().await.unwrap().contains("<div id=\"root\">"));
        }
    }
    // The server-filled pages decide for themselves (an unknown category is
    // theirs to refuse, a known route shape is not enough).
    assert_eq!(get("/").await.unwrap().status(), StatusCode::OK);
    assert_eq!(
        get("/category/no-such-category").await.unwrap().status(),
        StatusCode::NOT_FOUND
    );

    // An app rebuilt under the running node brings its new routes: the
    // file is read again when it changes (given a time of its own here, as
    // two writes within one clock tick would share one).
    let routes = app.app_dir().join("routes.json");
    std::fs::write(&routes, r#"["/", "/nowhere"]"#).unwrap();
    let stamp = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    std::fs::File::options()
        .write(true)
        .open(&routes)
        .unwrap()
        .set_modified(stamp)
        .unwrap();
    assert_eq!(get("/nowhere").await.unwrap().status(), StatusCode::OK);
    assert_eq!(
        get("/discover").await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    // A file that is no list of patterns, or none, leaves every path to the app.
    std::fs::write(&routes, "not json").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&routes)
        .unwrap()
        .set_modified(stamp + std::time::Duration::from_secs(1))
        .unwrap();
    assert_eq!(get("/elsewhere").await.unwrap().status(), StatusCode::OK);
    std::fs::write(&routes, r#"["/"]"#).unwrap();
    assert_eq!(
        get("/discover").await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    std::fs::remove_file(&routes).unwrap();
    assert_eq!(get("/discover").await.unwrap().status(), StatusCode::OK);

    // Without routes.json every path is the app's, as before.
    let plain = spawn_app_serving(INDEX_HTML).await;
    let response = client
        .get(format!("{}/nowhere", plain.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}
