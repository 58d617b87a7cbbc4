//! Security tests: image renditions (issue 42, item 1). One anonymous
//! client asked for every distinct `width`/`height`/`resize`/`quality` of a
//! public image and each was rendered and stored, with no bound: the disk
//! that holds the embedded database filled at about 31 GB an hour. With the
//! default settings a node keeps a share of renditions per object inside a
//! byte budget, and counts renders per client (429 past them).

use std::io::Cursor;
use std::path::Path;

use reqwest::{Client, StatusCode};

use crate::helpers::{TestApp, spawn_app};

/// A `size` x `size` PNG of noise (what compresses worst: each rendition
/// is about as large as its pixels).
fn noisy_png(size: u32) -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let image = image::RgbImage::from_fn(size, size, |_, _| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let [r, g, b, ..] = state.to_le_bytes();
        image::Rgb([r, g, b])
    });
    let mut out = Vec::new();
    image
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// Bytes of every file under `dir`, and how many of them are renditions.
fn usage(dir: &Path) -> (u64, usize) {
    fn walk(dir: &Path, bytes: &mut u64, renditions: &mut usize) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, bytes, renditions);
            } else {
                *bytes += entry.metadata().map_or(0, |m| m.len());
                if path.components().any(|c| c.as_os_str() == "renditions") {
                    *renditions += 1;
                }
            }
        }
    }
    let (mut bytes, mut renditions) = (0, 0);
    walk(dir, &mut bytes, &mut renditions);
    (bytes, renditions)
}

async fn service_call(app: &TestApp, request: reqwest::RequestBuilder) {
    let response = request
        .header("apikey", &app.keys.service_role_key)
        .bearer_auth(&app.keys.service_role_key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{:?}", response.text().await);
}

#[tokio::test]
async fn review2_item_01_an_anonymous_client_cannot_fill_the_disk_with_renditions() {
    let app = spawn_app().await;
    let http = Client::new();
    service_call(
        &app,
        http.post(format!("{}/storage/v1/bucket", app.url))
            .json(&serde_json::json!({"name": "gallery", "public": true})),
    )
    .await;
    service_call(
        &app,
        http.post(format!("{}/storage/v1/object/gallery/big.png", app.url))
            .header("content-type", "image/png")
            .body(noisy_png(1500)),
    )
    .await;
    let (before, _) = usage(&app.storage_dir());

    // 150 distinct renditions, asked for as anyone would: no key at all.
    let resizes = ["cover", "contain", "fill"];
    let (mut rendered, mut refused) = (0, 0);
    let mut first_ok = None;
    for i in 0..150u32 {
        let path = format!(
            "/storage/v1/render/image/public/gallery/big.png?width={}&height={}&resize={}&quality={}",
            200 + i * 8,
            1400 - i * 7,
            resizes[i as usize % 3],
            40 + i % 50,
        );
        let response = http.get(format!("{}{path}", app.url)).send().await.unwrap();
        match response.status() {
            StatusCode::OK => {
                rendered += 1;
                first_ok.get_or_insert(path);
            }
            StatusCode::TOO_MANY_REQUESTS => {
                refused += 1;
                assert!(response.headers().contains_key("retry-after"));
            }
            other => panic!("{other} for {path}: {:?}", response.text().await),
        }
    }
    let (after, stored) = usage(&app.storage_dir());
    let grown = after - before;
    println!(
        "150 asks: {rendered} rendered, {refused} refused, {stored} stored, {grown} bytes grown"
    );
    assert!(grown < 100_000_000, "the data folder grew by {grown} bytes");
    assert!(stored <= 12, "{stored} renditions stored for one object");
    assert!(refused > 0, "renders are counted per client");
    assert!(rendered >= 60, "the budget lets {rendered} through");
    // A stored rendition is still served to the client past its budget.
    let first_ok = first_ok.unwrap();
    let again = http
        .get(format!("{}{first_ok}", app.url))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
}
