//! The app's shareable pages filled on the server: `/`, `/template/{id}`,
//! `/profile/{usernameOrId}`, `/category/{slug}`, `/discover`, `/categories`
//! and `/creators` answer the built app's
//! `index.html` with the page's own `<title>`, description, canonical URL,
//! Open Graph and Twitter card tags (and, for a template, JSON-LD `Product`
//! with its price and rating), so that shared links and search engines see
//! the page without running JavaScript; the app then takes over as on any
//! other route. Plus `/sitemap.xml` and `/robots.txt`.
//!
//! # Invariants
//!
//! * **The anon role reads**, in a request transaction as a visitor without
//!   a session: row-level security decides what a page may show, exactly as
//!   for the app's own anonymous requests. An unpublished template is a 404.
//! * **Everything written into the page is escaped**: text and URLs as HTML
//!   attribute or text content, JSON-LD with `<`, `>` and `&` as `\u` escapes
//!   so no value can close its `<script>`.
//! * **Unknown ids, usernames and slugs answer 404** (with the app, which
//!   shows its own not-found screen, and `noindex`); a database that cannot
//!   be reached answers 503 with `Retry-After` and the app, which shows its
//!   retry state (any other database error: 500 with the app, logged).
//! * **Image URLs are built, not copied**: a stored image becomes a storage
//!   rendition URL (1200×630 for the cards of shared links) from its bucket
//!   and path, each segment percent-encoded; only `http(s)` URLs pass as
//!   they are.
//! * **Every page has a share image** (`og:image`, a large Twitter card):
//!   its own (a template's preview, a creator's avatar) when it has one
//!   that social sites can show (never an SVG), else the site's default
//!   (`share.rs`).
//!
//! `shell.rs` holds the app's `index.html`, `head.rs` renders and escapes
//! the tags, `preload.rs` names a template gallery's first image as the
//! app will ask for it, `share.rs` picks the share image.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::FunctionsState;

mod head;
mod preload;
mod share;
mod shell;

pub(crate) use head::html_escape;
use head::{Head, clip, plain};
use shell::ShellFile;

/// The marketplace's name, as the app's header and default title say it.
pub const SITE_NAME: &str = "Plinth Templates";
const HOME_TITLE: &str = "Plinth Templates — templates for your workspace";
const HOME_DESCRIPTION: &str = "Discover, buy and share templates for your workspace app.";
/// Search engines show about this many characters of a description.
const DESCRIPTION_CHARS: usize = 160;
/// The card of a shared link (Open Graph's recommended 1.91:1).
const CARD_WIDTH: u32 = 1200;
const CARD_HEIGHT: u32 = 630;
const AVATAR_SIZE: u32 = 400;
/// The buckets the app stores images in (bare paths in their columns).
const TEMPLATES_BUCKET: &str = "templates";
const AVATARS_BUCKET: &str = "avatars";
/// A sitemap file holds at most 50,000 URLs; the newest templates and
/// creators are listed within that.
const SITEMAP_TEMPLATES: i64 = 40_000;
const SITEMAP_PROFILES: i64 = 9_000;
/// Longer than any username (3–30) or UUID: refused before any query.
const MAX_KEY_LEN: usize = 64;
/// The paths a crawler has no reason to visit: private screens and the API.
const ROBOTS_DISALLOW: [&str; 12] = [
    "/auth",
    "/dashboard",
    "/upload",
    "/checkout",
    "/download/",
    "/download-secure/",
    "/api/",
    "/auth/v1/",
    "/rest/v1/",
    "/storage/v1/",
    "/functions/v1/",
    "/_/",
];

/// Path segments keep letters, digits and `-._~`; everything else is encoded.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The routes of the server-filled pages, given the built app's
/// `index.html`. `None` when that file cannot be read or has no `</head>`.
pub fn pages_router(state: FunctionsState, index_html: &Path) -> Option<Router> {
    let shell = ShellFile::open(index_html)?;
    let pages = Pages {
        state,
        shell: Arc::new(shell),
        app_dir: Arc::new(index_html.parent().unwrap_or(Path::new(".")).to_owned()),
    };
    Some(
        Router::new()
            .route("/", get(home))
            .route("/template/{id}", get(template))
            .route("/profile/{key}", get(profile))
            .route("/category/{slug}", get(category))
            .route("/discover", get(discover))
            .route("/categories", get(categories))
            .route("/creators", get(creators))
            .route("/sitemap.xml", get(sitemap))
            .route("/robots.txt", get(robots))
            .with_state(pages),
    )
}

#[derive(Clone)]
struct Pages {
    state: FunctionsState,
    shell: Arc<ShellFile>,
    /// The built app (its files: the default share image, the PNGs that
    /// stand for SVG previews, `routes.json`).
    app_dir: Arc<PathBuf>,
}

/// The page, or the app's not-found page (404), or 503 when the database
/// cannot be reached now (500 when it answered with an error).
enum Found {
    Page(Head),
    Missing(Head),
    Failed { unavailable: bool },
}

impl Found {
    fn from_read(
        read: Result<Option<Value>, ReadError>,
        fill: impl FnOnce(Value) -> Head,
        missing_title: &str,
    ) -> Self {
        match read {
            Ok(Some(row)) => Found::Page(fill(row)),
            Ok(None) => Found::Missing(missing(missing_title)),
            Err(ReadError { unavailable }) => Found::Failed { unavailable },
        }
    }
}

fn failure_status(unavailable: bool) -> StatusCode {
    if unavailable {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::INTERNAL_SERVER_ERROR
    }
}

/// `Retry-After` on a 503, as the other services answer one.
fn retry_later(response: &mut Response) {
    if response.status() == StatusCode::SERVICE_UNAVAILABLE {
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from(plinth_db::RETRY_AFTER_SECS),
        );
    }
}

/// A read that failed; `unavailable` when the database could not be reached
/// (`plinth_db::is_unavailable`).
struct ReadError {
    unavailable: bool,
}

impl From<sqlx::Error> for ReadError {
    fn from(error: sqlx::Error) -> Self {
        let unavailable = plinth_db::is_unavailable(&error);
        if unavailable {
            tracing::warn!(%error, "a server-filled page could not reach the database");
        } else {
            tracing::error!(%error, "a server-filled page's query failed");
        }
        Self { unavailable }
    }
}

impl Pages {
    fn answer(&self, found: Found) -> Response {
        let shell = self.shell.get();
        let site = self.state.config().site();
        let (status, mut head) = match found {
            Found::Page(head) => (StatusCode::OK, head),
            Found::Missing(head) => (StatusCode::NOT_FOUND, head),
            Found::Failed { unavailable } => (
                failure_status(unavailable),
                Head {
                    title: HOME_TITLE.into(),
                    description: HOME_DESCRIPTION.into(),
                    kind: "website",
                    hidden: true,
                    ..Head::default()
                },
            ),
        };
        if head.image.is_none() {
            head.image = Some(format!("{site}{}", share::DEFAULT_IMAGE));
            head.image_alt = share::DEFAULT_ALT.into();
            head.image_size = Some((share::DEFAULT_WIDTH, share::DEFAULT_HEIGHT));
        }
        let mut response = (
            status,
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/html; charset=utf-8"),
                ),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            ],
            shell.render(&head.render(site), head.shell_hero),
        )
            .into_response();
        retry_later(&mut response);
        response
    }

    /// The first row (as JSON) of `sql` with `$1 = key`, run as the anon
    /// role; `Err` when the database could not answer.
    async fn read(&self, sql: &'static str, key: &str) -> Result<Option<Value>, ReadError> {
        let mut tx = self.state.anon_tx().await?;
        let row: Option<Value> = sqlx::query_scalar(sql)
            .bind(key)
            .fetch_optional(&mut *tx)
            .await?;
        tx.rollback().await?;
        Ok(row)
    }

    /// A rendition URL of a stored image (`value` as the app stores it: a
    /// public storage URL, a bare path in `bucket`, or an http(s) URL), for
    /// the card of a shared link: `None` for an SVG, which social sites do
    /// not show, unless a site file's PNG stands for it (`share.rs`).
    fn image(&self, value: Option<&str>, bucket: &str, width: u32, height: u32) -> Option<String> {
        let value = value?.trim();
        let (bucket, path) = match public_object(value) {
            Some(rest) => {
                let (bucket, path) = rest.split_once('/')?;
                (decode(bucket)?, decode(path)?)
            }
            None if value.starts_with("https://") || value.starts_with("http://") => {
                let url = url::Url::parse(value).ok()?;
                return (!share::is_svg(url.path())).then(|| url.into());
            }
            None if value.starts_with('/') => {
                if value.starts_with("//") {
                    return None;
                }
                let site = self.state.config().site();
                let path = value.split(['?', '#']).next().unwrap_or_default();
                if share::is_svg(&decode(path)?) {
                    return share::raster_sibling(&self.app_dir, value)
                        .map(|png| format!("{site}{}", encode_path(&png)));
                }
                return Some(format!("{site}{}", encode_path(value)));
            }
            None if value.contains(':') => return None,
            None => (bucket.to_owned(), value.to_owned()),
        };
        if bucket.is_empty()
            || path.is_empty()
            || path.split('/').any(|s| s == ".." || s == ".")
            || share::is_svg(&path)
        {
            return None;
        }
        Some(format!(
            "{}/storage/v1/render/image/public/{}/{}?width={width}&height={height}&resize=cover",
            self.state.config().api(),
            utf8_percent_encode(&bucket, SEGMENT),
            encode_path(&path),
        ))
    }
}

const PUBLIC_OBJECT: &str = "/storage/v1/object/public/";

/// What follows `/storage/v1/object/public/` in a public storage URL (its
/// bucket and path, still percent-encoded), up to a query or fragment.
fn public_object(value: &str) -> Option<&str> {
    let at = value.find(PUBLIC_OBJECT)?;
    value[at + PUBLIC_OBJECT.len()..].split(['?', '#']).next()
}

fn decode(text: &str) -> Option<String> {
    percent_decode_str(text)
        .decode_utf8()
        .ok()
        .map(|s| s.into_owned())
}

/// Each `/`-separated segment of `path` percent-encoded.
fn encode_path(path: &str) -> String {
    path.split('/')
        .map(|segment| utf8_percent_encode(segment, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

async fn home(State(pages): State<Pages>) -> Response {
    pages.answer(Found::Page(home_head(pages.state.config().site())))
}

fn home_head(site: &str) -> Head {
    Head {
        title: HOME_TITLE.into(),
        description: HOME_DESCRIPTION.into(),
        canonical: "/".into(),
        kind: "website",
        json_ld: Some(json!({
            "@context": "https://schema.org",
            "@type": "WebSite",
            "name": SITE_NAME,
            "url": format!("{site}/"),
        })),
        shell_hero: true,
        ..Head::default()
    }
}

const TEMPLATE_SQL: &str = "\
select jsonb_build_object(
         'id', t.id, 'title', t.title, 'description', t.description,
         'about', t.about_template, 'price_in_cents', t.price_in_cents,
         'image', (select u from unnest(array[t.preview_image_url] || t.preview_images)
                          with ordinality as g(u, n)
                    where u <> '' order by n limit 1),
         'rating', t.average_rating::float8, 'ratings', t.total_ratings,
         'updated_at', t.updated_at, 'category', c.name,
         'creator', coalesce(nullif(p.display_name, ''), p.username, t.author),
         'username', p.username)
  from public.templates t
  left join public.profiles p on p.id = t.user_id
  left join public.categories c on c.id = t.category_id
 where t.id = $1::uuid and t.is_published";

async fn template(State(pages): State<Pages>, UrlPath(id): UrlPath<String>) -> Response {
    let Ok(id) = Uuid::parse_str(&id) else {
        return pages.answer(Found::Missing(missing("Template Not Found")));
    };
    let read = pages.read(TEMPLATE_SQL, &id.to_string()).await;
    pages.answer(Found::from_read(
        read,
        |row| template_head(&pages, &row),
        "Template Not Found",
    ))
}

fn template_head(pages: &Pages, t: &Value) -> Head {
    let config = pages.state.config();
    let site = config.site();
    let id = text(t, "id");
    let title = text(t, "title");
    let creator = text(t, "creator");
    let summary = [text(t, "description"), plain(&text(t, "about"))]
        .into_iter()
        .find(|s| !s.trim().is_empty())
        .unwrap_or_else(|| {
            if creator.is_empty() {
                format!("{title}, a template on {SITE_NAME}.")
            } else {
                format!("{title}, a template by {creator} on {SITE_NAME}.")
            }
        });
    let description = clip(&summary, DESCRIPTION_CHARS);
    let cents = t["price_in_cents"].as_i64().unwrap_or(0).max(0);
    let price = format!("{}.{:02}", cents / 100, cents % 100);
    let currency = config.currency.to_ascii_uppercase();
    let canonical = format!("/template/{id}");
    // The gallery's first image: the first preview the app shows.
    let preload = t["image"]
        .as_str()
        .and_then(|value| preload::gallery_image(value, TEMPLATES_BUCKET));
    let image = pages.image(
        t["image"].as_str(),
        TEMPLATES_BUCKET,
        CARD_WIDTH,
        CARD_HEIGHT,
    );
    let mut product = json!({
        "@context": "https://schema.org",
        "@type": "Product",
        "name": title,
        "description": description,
        "url": format!("{site}{canonical}"),
        "sku": id,
        "offers": {
            "@type": "Offer",
            "price": price,
            "priceCurrency": currency,
            "availability": "https://schema.org/InStock",
            "url": format!("{site}{canonical}"),
        },
    });
    if let Some(image) = &image {
        product["image"] = json!([image]);
    }
    if !creator.is_empty() {
        product["brand"] = json!({ "@type": "Brand", "name": creator });
    }
    if let Some(category) = t["category"].as_str() {
        product["category"] = json!(category);
    }
    // Search engines accept a rating only with at least one review behind it.
    let ratings = t["ratings"].as_i64().unwrap_or(0);
    if ratings > 0 {
        product["aggregateRating"] = json!({
            "@type": "AggregateRating",
            "ratingValue": t["rating"].as_f64().unwrap_or(0.0),
            "ratingCount": ratings,
            "bestRating": 5,
            "worstRating": 1,
        });
    }
    Head {
        title: format!("{title} — {SITE_NAME}"),
        description,
        canonical,
        kind: "product",
        image_alt: format!("Preview of {title}"),
        image_size: image.is_some().then_some((CARD_WIDTH, CARD_HEIGHT)),
        image,
        properties: vec![
            ("product:price:amount", price),
            ("product:price:currency", currency),
        ],
        json_ld: Some(product),
        preload,
        hidden: false,
        shell_hero: false,
    }
}

const PROFILE_SQL: &str = "\
select jsonb_build_object(
         'id', p.id, 'username', p.username, 'display_name', p.display_name,
         'bio', p.bio, 'avatar_url', p.avatar_url,
         'templates', (select count(*) from public.templates t
                        where t.user_id = p.id and t.is_published))
  from public.profiles p
 where p.username = lower($1)
    or (p.id::text = lower($1))";

async fn profile(State(pages): State<Pages>, UrlPath(key): UrlPath<String>) -> Response {
    if key.is_empty() || key.len() > MAX_KEY_LEN {
        return pages.answer(Found::Missing(missing("Profile Not Found")));
    }
    let read = pages.read(PROFILE_SQL, &key).await;
    pages.answer(Found::from_read(
        read,
        |row| profile_head(&pages, &row),
        "Profile Not Found",
    ))
}

fn profile_head(pages: &Pages, p: &Value) -> Head {
    let site = pages.state.config().site();
    let username = text(p, "username");
    let handle = if username.is_empty() {
        text(p, "id")
    } else {
        username.clone()
    };
    let display = text(p, "display_name");
    let name = if !display.trim().is_empty() {
        display
    } else if !username.is_empty() {
        username.clone()
    } else {
        "A creator".into()
    };
    let count = p["templates"].as_i64().unwrap_or(0);
    let bio = plain(&text(p, "bio"));
    let description = if bio.trim().is_empty() {
        match count {
            0 => format!("{name} on {SITE_NAME}."),
            1 => format!("{name} has 1 template on {SITE_NAME}."),
            n => format!("{name} has {n} templates on {SITE_NAME}."),
        }
    } else {
        clip(&bio, DESCRIPTION_CHARS)
    };
    let title = if username.is_empty() {
        format!("{name} — {SITE_NAME}")
    } else {
        format!("{name} (@{username}) — {SITE_NAME}")
    };
    let canonical = format!("/profile/{}", utf8_percent_encode(&handle, SEGMENT));
    let image = pages.image(
        p["avatar_url"].as_str(),
        AVATARS_BUCKET,
        AVATAR_SIZE,
        AVATAR_SIZE,
    );
    let mut person = json!({
        "@context": "https://schema.org",
        "@type": "ProfilePage",
        "url": format!("{site}{canonical}"),
        "mainEntity": { "@type": "Person", "name": name },
    });
    if !username.is_empty() {
        person["mainEntity"]["alternateName"] = json!(format!("@{username}"));
    }
    if let Some(image) = &image {
        person["mainEntity"]["image"] = json!(image);
    }
    Head {
        title,
        description,
        canonical,
        kind: "profile",
        image_alt: format!("{name}'s avatar"),
        image_size: image.is_some().then_some((AVATAR_SIZE, AVATAR_SIZE)),
        image,
        properties: if username.is_empty() {
            Vec::new()
        } else {
            vec![("profile:username", username)]
        },
        json_ld: Some(person),
        preload: None,
        hidden: false,
        shell_hero: false,
    }
}

const CATEGORY_SQL: &str = "\
select jsonb_build_object('name', c.name, 'slug', c.slug, 'description', c.description)
  from public.categories c
 where c.slug = $1";

async fn category(State(pages): State<Pages>, UrlPath(slug): UrlPath<String>) -> Response {
    if slug.is_empty() || slug.len() > MAX_KEY_LEN {
        return pages.answer(Found::Missing(missing("Category Not Found")));
    }
    let read = pages.read(CATEGORY_SQL, &slug).await;
    pages.answer(Found::from_read(
        read,
        |row| category_head(&pages, &row),
        "Category Not Found",
    ))
}

fn category_head(pages: &Pages, row: &Value) -> Head {
    let name = text(row, "name");
    let slug = text(row, "slug");
    let about = text(row, "description");
    let description = if about.trim().is_empty() {
        format!("{name} templates on {SITE_NAME}.")
    } else {
        clip(&about, DESCRIPTION_CHARS)
    };
    let canonical = format!("/category/{}", utf8_percent_encode(&slug, SEGMENT));
    let site = pages.state.config().site();
    Head {
        title: format!("{name} templates — {SITE_NAME}"),
        description,
        json_ld: Some(json!({
            "@context": "https://schema.org",
            "@type": "CollectionPage",
            "name": format!("{name} templates"),
            "url": format!("{site}{canonical}"),
        })),
        canonical,
        kind: "website",
        ..Head::default()
    }
}

/// The lists without a row of their own: their title is the site's (the app
/// does not name these screens), their description and canonical URL their
/// own; 404 when the app's `routes.json` no longer has them.
const LISTS: [(&str, &str); 3] = [
    (
        "/discover",
        "Browse every template on Plinth Templates: search, filter by category and price, sort by popularity or date.",
    ),
    (
        "/categories",
        "Templates by category on Plinth Templates: productivity, business, education, health & fitness and more.",
    ),
    (
        "/creators",
        "The creators on Plinth Templates: their templates, downloads and followers.",
    ),
];

async fn discover(State(pages): State<Pages>) -> Response {
    pages.list(0)
}

async fn categories(State(pages): State<Pages>) -> Response {
    pages.list(1)
}

async fn creators(State(pages): State<Pages>) -> Response {
    pages.list(2)
}

impl Pages {
    fn list(&self, which: usize) -> Response {
        let (path, description) = LISTS[which];
        if !self.app_has_route(path) {
            return self.answer(Found::Missing(missing("Page Not Found")));
        }
        self.answer(Found::Page(Head {
            title: HOME_TITLE.into(),
            description: description.into(),
            canonical: path.into(),
            kind: "website",
            ..Head::default()
        }))
    }

    /// Whether the app's `routes.json` (when it has one that parses) lists
    /// `path`, as the server's own check of the app's other paths reads it.
    fn app_has_route(&self, path: &str) -> bool {
        let Ok(text) = std::fs::read_to_string(self.app_dir.join("routes.json")) else {
            return true;
        };
        let Ok(patterns) = serde_json::from_str::<Vec<String>>(&text) else {
            return true;
        };
        patterns
            .iter()
            .any(|p| p == "/*" || p.trim_end_matches('/').eq_ignore_ascii_case(path))
    }
}

fn missing(title: &str) -> Head {
    Head {
        title: format!("{title} — {SITE_NAME}"),
        description: HOME_DESCRIPTION.into(),
        kind: "website",
        hidden: true,
        ..Head::default()
    }
}

/// Every public page worth a search engine's visit: `$1` templates and `$2`
/// creators at most, the newest first.
const SITEMAP_SQL: &str = "\
(select jsonb_build_object('path', '/template/' || t.id, 'modified', t.updated_at)
   from public.templates t
  where t.is_published
  order by t.created_at desc
  limit $1)
union all
(select jsonb_build_object('path', '/profile/' || coalesce(p.username, p.id::text),
                           'modified', p.updated_at)
   from public.profiles p
  where exists (select 1 from public.templates t where t.user_id = p.id and t.is_published)
  order by p.created_at desc
  limit $2)
union all
(select jsonb_build_object('path', '/category/' || c.slug)
   from public.categories c
  order by c.name)";

/// `/sitemap.xml`: the home page, the lists, every published template, every
/// creator with a published template, and every category; as the anon role.
async fn sitemap(State(pages): State<Pages>) -> Response {
    let run = async {
        let mut tx = pages.state.anon_tx().await?;
        let rows: Vec<Value> = sqlx::query_scalar(SITEMAP_SQL)
            .bind(SITEMAP_TEMPLATES)
            .bind(SITEMAP_PROFILES)
            .fetch_all(&mut *tx)
            .await?;
        tx.rollback().await?;
        Ok::<_, ReadError>(rows)
    };
    let rows = match run.await {
        Ok(rows) => rows,
        Err(ReadError { unavailable }) => {
            let mut response = (
                failure_status(unavailable),
                "The sitemap is not available now.",
            )
                .into_response();
            retry_later(&mut response);
            return response;
        }
    };
    let site = pages.state.config().site();
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    let fixed = ["/", "/discover", "/categories", "/creators"].map(|path| json!({ "path": path }));
    for row in fixed.iter().chain(rows.iter()) {
        let path = text(row, "path");
        let _ = write!(
            xml,
            "<url><loc>{}</loc>",
            html_escape(&format!("{site}{path}"))
        );
        if let Some(modified) = row["modified"].as_str() {
            let _ = write!(xml, "<lastmod>{}</lastmod>", html_escape(modified));
        }
        xml.push_str("</url>\n");
    }
    xml.push_str("</urlset>\n");
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/xml; charset=utf-8"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("max-age=300"),
            ),
        ],
        xml,
    )
        .into_response()
}

/// `/robots.txt`: everything public may be crawled, private screens and the
/// API not; where the sitemap is.
async fn robots(State(pages): State<Pages>) -> Response {
    let mut text = String::from("User-agent: *\nAllow: /\n");
    for path in ROBOTS_DISALLOW {
        let _ = writeln!(text, "Disallow: {path}");
    }
    let _ = write!(
        text,
        "\nSitemap: {}/sitemap.xml\n",
        pages.state.config().site()
    );
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("max-age=3600"),
            ),
        ],
        text,
    )
        .into_response()
}

fn text(row: &Value, key: &str) -> String {
    row[key].as_str().unwrap_or_default().to_owned()
}
