//! Image transformations (`/render/image/...`) on the same harness as the
//! rest of the API suite: real PostgreSQL, real row-level security, the
//! real byte store.

use std::io::Cursor;

use super::*;

/// A `w` x `h` PNG with a gradient (so resizing has something to do).
pub(super) fn png(w: u32, h: u32) -> Vec<u8> {
    let image = image::RgbImage::from_fn(w, h, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x + y) % 256) as u8])
    });
    let mut out = Vec::new();
    image
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A small valid PNG whose header claims `w` x `h` pixels (a decompression
/// bomb's shape: a few bytes that would decode into gigabytes).
fn png_claiming(w: u32, h: u32) -> Vec<u8> {
    let mut bytes = png(4, 4);
    // signature (8) + length (4) + "IHDR" (4), then width and height
    bytes[16..20].copy_from_slice(&w.to_be_bytes());
    bytes[20..24].copy_from_slice(&h.to_be_bytes());
    let crc = crc32(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}

fn dims(bytes: &[u8]) -> (u32, u32) {
    image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .unwrap()
        .into_dimensions()
        .unwrap()
}

impl App {
    async fn render(&self, path: &str, accept: Option<&str>) -> reqwest::Response {
        let mut request = self.client.get(self.url(path));
        if let Some(accept) = accept {
            request = request.header("accept", accept);
        }
        request.send().await.unwrap()
    }

    fn renditions(&self) -> Vec<String> {
        self.stored_files()
            .into_iter()
            .filter(|f| f.starts_with("renditions/"))
            .collect()
    }
}

#[tokio::test]
async fn public_render_resizes_negotiates_and_reports_transformations() {
    let app = spawn_app().await;
    let source = png(200, 100);
    let r = app
        .upload(
            &app.service,
            "public-bucket",
            "pics/wide.png",
            &source,
            "image/png",
        )
        .await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    let info: Value = app
        .get("/object/info/public-bucket/pics/wide.png", &app.service)
        .await
        .json()
        .await
        .unwrap();

    // a browser that takes WebP gets WebP, cropped to the box (cover)
    let r = app
        .render(
            "/render/image/public/public-bucket/pics/wide.png?width=50&height=50",
            Some("image/avif,image/webp,*/*"),
        )
        .await;
    assert_eq!(r.status(), 200);
    let h = r.headers().clone();
    assert_eq!(h["content-type"], "image/webp");
    assert_eq!(
        h["x-transformations"],
        "height:50,width:50,resizing_type:fill"
    );
    assert_eq!(h["etag"], info["etag"].as_str().unwrap());
    assert_eq!(h["cache-control"], "max-age=3600");
    assert_eq!(h["x-content-type-options"], "nosniff");
    let body = r.bytes().await.unwrap();
    assert_eq!(h["content-length"], body.len().to_string().as_str());
    assert_eq!(dims(&body), (50, 50));
    assert!(body.len() < source.len());

    // no WebP in Accept: the source's format; contain fits inside the box
    let r = app
        .render(
            "/render/image/public/public-bucket/pics/wide.png?width=50&height=50&resize=contain",
            Some("image/png,*/*"),
        )
        .await;
    assert_eq!(r.headers()["content-type"], "image/png");
    assert_eq!(
        r.headers()["x-transformations"],
        "height:50,width:50,resizing_type:fit"
    );
    assert_eq!(dims(&r.bytes().await.unwrap()), (50, 25));

    // format=origin keeps PNG even for a WebP browser; fill stretches
    let r = app
        .render(
            "/render/image/public/public-bucket/pics/wide.png?width=30&height=60&resize=fill&format=origin",
            Some("image/webp"),
        )
        .await;
    assert_eq!(r.headers()["content-type"], "image/png");
    assert_eq!(dims(&r.bytes().await.unwrap()), (30, 60));

    // a private bucket is not reachable through the public route
    let r = app
        .upload(&app.service, "private", "x/wide.png", &source, "image/png")
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .render("/render/image/public/private/x/wide.png?width=10", None)
        .await;
    assert_error(r, StatusCode::BAD_REQUEST, "404", "NoSuchBucket").await;
}

#[tokio::test]
async fn renditions_are_cached_per_version_and_go_with_the_object() {
    let app = spawn_app().await;
    let path = "/render/image/public/public-bucket/a.png?width=40";
    app.upload(
        &app.service,
        "public-bucket",
        "a.png",
        &png(160, 80),
        "image/png",
    )
    .await;
    let first = app
        .render(path, Some("image/webp"))
        .await
        .bytes()
        .await
        .unwrap();
    assert_eq!(dims(&first), (40, 20));
    let cached = app.renditions();
    assert_eq!(cached.len(), 1, "{cached:?}");
    // the second answer is the cached file, byte for byte
    let second = app
        .render(path, Some("image/webp"))
        .await
        .bytes()
        .await
        .unwrap();
    assert_eq!(first, second);
    assert_eq!(app.renditions(), cached);

    // a new version is rendered afresh; the old version's renditions go
    let r = app
        .request(
            reqwest::Method::PUT,
            "/object/public-bucket/a.png",
            &app.service,
        )
        .header("content-type", "image/png")
        .body(png(80, 160))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    let third = app
        .render(path, Some("image/webp"))
        .await
        .bytes()
        .await
        .unwrap();
    assert_eq!(dims(&third), (40, 80));
    // (the old version's bytes and renditions are removed in the background)
    let is_rendition = |f: &String| f.starts_with("renditions/");
    let now_cached: Vec<String> = app
        .stored_files_once(|f| f.iter().filter(|f| is_rendition(f)).count() == 1)
        .await
        .into_iter()
        .filter(is_rendition)
        .collect();
    assert_eq!(now_cached.len(), 1, "{now_cached:?}");
    assert_ne!(now_cached, cached);

    // deleting the object removes its renditions too
    let r = app
        .request(
            reqwest::Method::DELETE,
            "/object/public-bucket/a.png",
            &app.service,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(app.renditions().is_empty(), "{:?}", app.renditions());
    let r = app.render(path, None).await;
    assert_error(r, StatusCode::BAD_REQUEST, "404", "NoSuchKey").await;
}

#[tokio::test]
async fn authenticated_render_is_refused_for_someone_elses_private_object() {
    let app = spawn_app().await;
    let (alice, mallory) = (Uuid::new_v4(), Uuid::new_v4());
    let name = format!("{alice}/avatar.png");
    let r = app
        .upload(
            &app.user(alice),
            "private",
            &name,
            &png(300, 300),
            "image/png",
        )
        .await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    let path = format!("/render/image/authenticated/private/{name}?width=96&height=96");

    let r = app.get(&path, &app.user(alice)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(dims(&r.bytes().await.unwrap()), (96, 96));

    // another user: row-level security hides the row, nothing is rendered
    let r = app.get(&path, &app.user(mallory)).await;
    assert_error(r, StatusCode::BAD_REQUEST, "404", "NoSuchKey").await;
    // the anon key alone: no row either
    let r = app.get(&path, &app.anon).await;
    assert_error(r, StatusCode::BAD_REQUEST, "404", "NoSuchKey").await;
    // nothing at all
    let r = app.client.get(app.url(&path)).send().await.unwrap();
    assert_error(r, StatusCode::BAD_REQUEST, "403", "AccessDenied").await;
    // the public route does not open a private bucket
    let r = app
        .render(
            &format!("/render/image/public/private/{name}?width=96"),
            None,
        )
        .await;
    assert_error(r, StatusCode::BAD_REQUEST, "404", "NoSuchBucket").await;
}

#[tokio::test]
async fn huge_sizes_are_clamped_and_images_never_enlarged() {
    let app = spawn_app().await;
    app.upload(
        &app.service,
        "public-bucket",
        "s.png",
        &png(64, 32),
        "image/png",
    )
    .await;
    let r = app
        .render(
            "/render/image/public/public-bucket/s.png?width=1000000&height=99999",
            None,
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["x-transformations"],
        "height:2000,width:2000,resizing_type:fill"
    );
    assert_eq!(dims(&r.bytes().await.unwrap()), (64, 32));
}

#[tokio::test]
async fn bad_options_and_non_images_are_refused_as_the_platform() {
    let app = spawn_app().await;
    app.upload(
        &app.service,
        "public-bucket",
        "s.png",
        &png(8, 8),
        "image/png",
    )
    .await;
    for (query, message) in [
        ("quality=5", "querystring/quality must be >= 20"),
        ("quality=101", "querystring/quality must be <= 100"),
        ("width=wide", "querystring/width must be integer"),
        ("height=-1", "querystring/height must be >= 0"),
        (
            "resize=stretch",
            "querystring/resize must be equal to one of the allowed values",
        ),
        (
            "format=gif",
            "querystring/format must be equal to one of the allowed values",
        ),
    ] {
        let r = app
            .render(
                &format!("/render/image/public/public-bucket/s.png?{query}"),
                None,
            )
            .await;
        let body = assert_error(r, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
        assert_eq!(body["message"], message);
    }

    // a text file, and a file that only claims to be a PNG
    app.upload(
        &app.service,
        "public-bucket",
        "t.txt",
        b"hello",
        "text/plain",
    )
    .await;
    app.upload(
        &app.service,
        "public-bucket",
        "fake.png",
        b"<svg onload=alert(1)>",
        "image/png",
    )
    .await;
    // with and without WebP in Accept (the cache key then needs no sniffing,
    // the source is still checked before anything is rendered)
    for (name, accept) in [
        ("t.txt", None),
        ("fake.png", None),
        ("t.txt", Some("image/webp")),
        ("fake.png", Some("image/webp")),
    ] {
        let r = app
            .render(
                &format!("/render/image/public/public-bucket/{name}?width=10"),
                accept,
            )
            .await;
        let body = assert_error(r, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
        assert_eq!(
            body["message"],
            "The source image is invalid or unsupported for rendering"
        );
        assert_eq!(body["error"], "InvalidRequest");
    }
    assert!(app.renditions().is_empty());
}

#[tokio::test]
async fn a_png_claiming_huge_dimensions_is_refused_before_decoding() {
    let app = spawn_app().await;
    let bomb = png_claiming(100_000, 100_000);
    assert!(bomb.len() < 1024);
    app.upload(
        &app.service,
        "public-bucket",
        "bomb.png",
        &bomb,
        "image/png",
    )
    .await;
    let started = std::time::Instant::now();
    let r = app
        .render("/render/image/public/public-bucket/bomb.png?width=10", None)
        .await;
    let body = assert_error(r, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
    assert_eq!(
        body["message"],
        "The source image resolution is too large to process"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // a header within the limit but lying about its data is merely invalid
    let liar = png_claiming(2000, 2000);
    app.upload(
        &app.service,
        "public-bucket",
        "liar.png",
        &liar,
        "image/png",
    )
    .await;
    let r = app
        .render("/render/image/public/public-bucket/liar.png?width=10", None)
        .await;
    let body = assert_error(r, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
    assert_eq!(
        body["message"],
        "The source image is invalid or unsupported for rendering"
    );
}

#[tokio::test]
async fn signed_urls_carry_the_transformation_in_their_token() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let name = format!("{alice}/photo.png");
    app.upload(
        &app.user(alice),
        "private",
        &name,
        &png(120, 60),
        "image/png",
    )
    .await;
    let r = app
        .post_json(
            &format!("/object/sign/private/{name}"),
            &app.user(alice),
            json!({ "expiresIn": 60, "transform": { "width": 30, "format": "origin" } }),
        )
        .await;
    assert_eq!(r.status(), 200);
    let signed: Value = r.json().await.unwrap();
    let url = signed["signedURL"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with(&format!("/render/image/sign/private/{name}?token=")),
        "{url}"
    );
    let r = app.render(&url, Some("image/webp")).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().contains_key("expires"));
    assert!(!r.headers().contains_key("cache-control"));
    assert_eq!(r.headers()["content-type"], "image/png");
    assert_eq!(
        r.headers()["x-transformations"],
        "width:30,resizing_type:fill"
    );
    assert_eq!(dims(&r.bytes().await.unwrap()), (30, 15));

    // the token's options cannot be changed through the query
    let r = app.render(&format!("{url}&width=120"), None).await;
    assert_eq!(dims(&r.bytes().await.unwrap()), (30, 15));
    // nor used for another object, nor forged
    let token = url.split("token=").nth(1).unwrap();
    let r = app
        .render(
            &format!("/render/image/sign/private/{alice}/other.png?token={token}"),
            None,
        )
        .await;
    assert_error(r, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
    let r = app
        .render(
            &format!("/render/image/sign/private/{name}?token={token}x"),
            None,
        )
        .await;
    assert_error(r, StatusCode::BAD_REQUEST, "403", "AccessDenied").await;

    // without a transform the signed URL stays a plain download
    let r = app
        .post_json(
            &format!("/object/sign/private/{name}"),
            &app.user(alice),
            json!({ "expiresIn": 60 }),
        )
        .await;
    let signed: Value = r.json().await.unwrap();
    assert!(
        signed["signedURL"]
            .as_str()
            .unwrap()
            .starts_with("/object/sign/")
    );
    // a bad transform is refused when signing
    let r = app
        .post_json(
            &format!("/object/sign/private/{name}"),
            &app.user(alice),
            json!({ "expiresIn": 60, "transform": { "quality": 1 } }),
        )
        .await;
    assert_error(r, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
}

#[tokio::test]
async fn download_of_the_original_is_unchanged_by_renders() {
    let app = spawn_app().await;
    let source = png(50, 50);
    app.upload(&app.service, "public-bucket", "o.png", &source, "image/png")
        .await;
    let r = app
        .render(
            "/render/image/public/public-bucket/o.png?width=10",
            Some("image/webp"),
        )
        .await;
    assert_eq!(r.status(), 200);
    let r = app
        .render("/object/public/public-bucket/o.png", Some("image/webp"))
        .await;
    assert_eq!(r.headers()["content-type"], "image/png");
    assert_eq!(r.bytes().await.unwrap().as_ref(), source.as_slice());
}

impl App {
    /// A storage server on this app's database and byte store with the
    /// renditions bounded by `tweak`; its address.
    async fn serve_bounded(&self, tweak: impl FnOnce(&mut StorageConfig)) -> SocketAddr {
        let mut config = self.config(Duration::from_secs(3600));
        tweak(&mut config);
        self.serve_with(config).await
    }

    /// The stored renditions' total size, read from the byte store itself.
    async fn rendition_bytes(&self) -> u64 {
        let op = plinth_storage::build_operator(&self.backend).unwrap();
        let mut total = 0;
        for key in self.renditions() {
            total += op.stat(&key).await.unwrap().content_length();
        }
        total
    }
}

async fn render_at(addr: SocketAddr, path: &str, token: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(format!("http://{addr}{path}"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

/// Past the byte budget the least recently used renditions go; a node
/// started later counts what is already stored.
#[tokio::test]
async fn the_stored_renditions_stay_within_their_byte_budget() {
    let app = spawn_app().await;
    app.upload(
        &app.service,
        "public-bucket",
        "g.png",
        &png(400, 400),
        "image/png",
    )
    .await;
    let budget = 60_000;
    let node = app
        .serve_bounded(|c| {
            c.rendition_cache_bytes = budget;
            c.renditions_per_object = 1000;
            c.renders_per_minute = 0;
        })
        .await;
    let path = |w: u32| format!("/render/image/public/public-bucket/g.png?width={w}&format=origin");
    let mut sizes = Vec::new();
    for w in (100..=400).step_by(20) {
        let r = render_at(node, &path(w), None).await;
        assert_eq!(r.status(), 200);
        sizes.push(r.bytes().await.unwrap().len() as u64);
        assert!(app.rendition_bytes().await <= budget);
    }
    assert!(
        sizes.iter().sum::<u64>() > 2 * budget,
        "the renders ({sizes:?}) are more than the budget holds"
    );
    // The newest is kept; an evicted one is rendered again, same bytes.
    let stored = app.renditions();
    assert!(
        !stored.is_empty() && stored.len() < sizes.len(),
        "{stored:?}"
    );
    let again = render_at(node, &path(400), None).await;
    assert_eq!(again.status(), 200);
    assert_eq!(app.renditions(), stored, "the newest was a hit");
    let first = render_at(node, &path(100), None).await;
    assert_eq!(first.bytes().await.unwrap().len() as u64, sizes[0]);

    // A node started on the same store with a smaller budget trims it.
    let smaller = app
        .serve_bounded(|c| {
            c.rendition_cache_bytes = budget / 4;
            c.renders_per_minute = 0;
        })
        .await;
    // (it reads the store in the background, at start-up)
    let mut kept = app.rendition_bytes().await;
    for _ in 0..250 {
        if kept <= budget / 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        kept = app.rendition_bytes().await;
    }
    assert!(kept <= budget / 4, "{kept} bytes kept");
    let r = render_at(smaller, &path(120), None).await;
    assert_eq!(r.status(), 200);
    assert!(app.rendition_bytes().await <= budget / 4);
}

/// More distinct asks of one image than its share are rendered and sent,
/// not stored.
#[tokio::test]
async fn an_object_keeps_at_most_its_share_of_renditions() {
    let app = spawn_app().await;
    app.upload(
        &app.service,
        "public-bucket",
        "s.png",
        &png(200, 200),
        "image/png",
    )
    .await;
    let node = app
        .serve_bounded(|c| {
            c.renditions_per_object = 3;
            c.renders_per_minute = 0;
        })
        .await;
    for w in [20, 30, 40, 50, 60, 70] {
        let r = render_at(
            node,
            &format!("/render/image/public/public-bucket/s.png?width={w}"),
            None,
        )
        .await;
        assert_eq!(r.status(), 200);
        assert_eq!(dims(&r.bytes().await.unwrap()).0, w);
    }
    assert_eq!(app.renditions().len(), 3, "{:?}", app.renditions());
}

/// Renders (cache misses) are counted per client; cached renditions and
/// the service role are not.
#[tokio::test]
async fn renders_past_a_clients_budget_are_refused_and_hits_are_free() {
    let app = spawn_app().await;
    app.upload(
        &app.service,
        "public-bucket",
        "r.png",
        &png(200, 200),
        "image/png",
    )
    .await;
    let node = app.serve_bounded(|c| c.renders_per_minute = 3).await;
    let path = |w: u32| format!("/render/image/public/public-bucket/r.png?width={w}");
    for w in [10, 20, 30] {
        assert_eq!(render_at(node, &path(w), None).await.status(), 200);
    }
    let refused = render_at(node, &path(40), None).await;
    assert_eq!(refused.status(), 429);
    let wait: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=20).contains(&wait), "{wait}");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["statusCode"], "429", "{body}");
    // A stored rendition costs no render.
    assert_eq!(render_at(node, &path(10), None).await.status(), 200);
    // The operator's own servers are not counted.
    let authenticated =
        |w: u32| format!("/render/image/authenticated/public-bucket/r.png?width={w}");
    for w in [50, 60, 70, 80] {
        let r = render_at(node, &authenticated(w), Some(&app.service)).await;
        assert_eq!(r.status(), 200);
    }
}
