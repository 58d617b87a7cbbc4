//! `POST /object/list-v2/{bucket}` (storage-js `listV2`): cursor paging,
//! folders folded at `/`, as the platform answers.

use super::*;

const NAMES: [&str; 6] = [
    "a.txt",
    "b/1.txt",
    "b/2.txt",
    "b/c/3.txt",
    "d.txt",
    "e/4.txt",
];

async fn seeded() -> App {
    let app = spawn_app().await;
    for name in NAMES {
        let r = app
            .upload(&app.service, "public-bucket", name, b"x", "text/plain")
            .await;
        assert_eq!(r.status(), 200, "{name}");
    }
    app
}

async fn list(app: &App, token: &str, bucket: &str, body: Value) -> Value {
    let r = app
        .post_json(&format!("/object/list-v2/{bucket}"), token, body)
        .await;
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

fn names(list: &Value, kind: &str) -> Vec<String> {
    list[kind]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn delimited_pages_fold_folders_and_follow_the_cursor() {
    let app = seeded().await;
    let all = list(
        &app,
        &app.service,
        "public-bucket",
        json!({ "with_delimiter": true }),
    )
    .await;
    assert_eq!(all["hasNext"], false);
    assert!(all.get("nextCursor").is_none());
    assert_eq!(names(&all, "folders"), ["b/", "e/"]);
    assert_eq!(names(&all, "objects"), ["a.txt", "d.txt"]);
    // a folder is the platform's row for it (the Python client needs its key)
    assert_eq!(
        all["folders"][0],
        json!({ "key": "b", "name": "b/", "id": null, "metadata": null,
                "created_at": null, "updated_at": null, "last_accessed_at": null })
    );
    let object = &all["objects"][0];
    let mut keys: Vec<&String> = object.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "created_at",
            "id",
            "key",
            "last_accessed_at",
            "metadata",
            "name",
            "updated_at"
        ]
    );
    assert_eq!(object["key"], "a.txt");
    assert_eq!(object["metadata"]["size"], 1);

    // two entries a page: a.txt, b/ | d.txt, e/
    let first = list(
        &app,
        &app.service,
        "public-bucket",
        json!({ "with_delimiter": true, "limit": 2 }),
    )
    .await;
    assert_eq!(first["hasNext"], true);
    // the platform names a folder last on the page without its slash
    assert_eq!(first["nextCursorKey"], "b");
    assert_eq!(names(&first, "objects"), ["a.txt"]);
    assert_eq!(names(&first, "folders"), ["b/"]);
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = list(
        &app,
        &app.service,
        "public-bucket",
        json!({ "with_delimiter": true, "limit": 2, "cursor": cursor }),
    )
    .await;
    assert_eq!(second["hasNext"], false);
    assert_eq!(names(&second, "objects"), ["d.txt"]);
    assert_eq!(names(&second, "folders"), ["e/"]);

    // inside a folder; keys are the names' segment at the prefix's depth
    let inside = list(
        &app,
        &app.service,
        "public-bucket",
        json!({ "with_delimiter": true, "prefix": "b/" }),
    )
    .await;
    assert_eq!(names(&inside, "folders"), ["b/c/"]);
    assert_eq!(inside["folders"][0]["key"], "c");
    assert_eq!(names(&inside, "objects"), ["b/1.txt", "b/2.txt"]);
    assert_eq!(inside["objects"][1]["key"], "2.txt");

    // descending
    let desc = list(
        &app,
        &app.service,
        "public-bucket",
        json!({ "with_delimiter": true, "limit": 3, "sortBy": { "column": "name", "order": "desc" } }),
    )
    .await;
    assert_eq!(names(&desc, "folders"), ["e/", "b/"]);
    assert_eq!(names(&desc, "objects"), ["d.txt"]);
    let rest = list(
        &app,
        &app.service,
        "public-bucket",
        json!({ "with_delimiter": true, "limit": 3, "cursor": desc["nextCursor"] }),
    )
    .await;
    assert_eq!(names(&rest, "objects"), ["a.txt"]);
    assert!(names(&rest, "folders").is_empty());
}

#[tokio::test]
async fn flat_listing_pages_through_every_object() {
    let app = seeded().await;
    let first = list(&app, &app.service, "public-bucket", json!({ "limit": 4 })).await;
    assert_eq!(names(&first, "objects"), NAMES[..4]);
    assert!(names(&first, "folders").is_empty());
    assert!(first["objects"][0].get("key").is_none());
    assert_eq!(first["nextCursorKey"], "b/c/3.txt");
    let second = list(
        &app,
        &app.service,
        "public-bucket",
        json!({ "limit": 4, "cursor": first["nextCursor"] }),
    )
    .await;
    assert_eq!(names(&second, "objects"), NAMES[4..]);
    assert_eq!(second["hasNext"], false);
    // a prefix is a plain string prefix
    let b = list(
        &app,
        &app.service,
        "public-bucket",
        json!({ "prefix": "b/c" }),
    )
    .await;
    assert_eq!(names(&b, "objects"), ["b/c/3.txt"]);
    // by creation time, newest first, paged with the column in the cursor
    let newest = list(
        &app,
        &app.service,
        "public-bucket",
        json!({ "limit": 5, "sortBy": { "column": "created_at", "order": "desc" } }),
    )
    .await;
    let mut expected: Vec<&str> = NAMES.to_vec();
    expected.reverse();
    assert_eq!(names(&newest, "objects"), expected[..5]);
    let last = list(
        &app,
        &app.service,
        "public-bucket",
        json!({ "limit": 5, "cursor": newest["nextCursor"] }),
    )
    .await;
    assert_eq!(names(&last, "objects"), ["a.txt"]);
}

#[tokio::test]
async fn list_v2_runs_under_row_level_security_and_checks_its_body() {
    let app = spawn_app().await;
    let (alice, mallory) = (Uuid::new_v4(), Uuid::new_v4());
    for name in ["one.txt", "sub/two.txt"] {
        let r = app
            .upload(
                &app.user(alice),
                "private",
                &format!("{alice}/{name}"),
                b"x",
                "text/plain",
            )
            .await;
        assert_eq!(r.status(), 200);
    }
    let own = list(
        &app,
        &app.user(alice),
        "private",
        json!({ "with_delimiter": true, "prefix": format!("{alice}/") }),
    )
    .await;
    assert_eq!(names(&own, "objects"), [format!("{alice}/one.txt")]);
    assert_eq!(names(&own, "folders"), [format!("{alice}/sub/")]);
    let other = list(
        &app,
        &app.user(mallory),
        "private",
        json!({ "with_delimiter": true }),
    )
    .await;
    assert!(names(&other, "objects").is_empty() && names(&other, "folders").is_empty());
    let anon = list(&app, &app.anon, "private", json!({})).await;
    assert!(names(&anon, "objects").is_empty());

    for (body, message) in [
        (json!({ "limit": 0 }), "body/limit must be >= 1"),
        (json!({ "limit": "many" }), "body/limit must be integer"),
        (
            json!({ "with_delimiter": "yes" }),
            "body/with_delimiter must be boolean",
        ),
        (
            json!({ "sortBy": { "column": "size" } }),
            "body/sortBy/column must be equal to one of the allowed values",
        ),
    ] {
        let r = app
            .post_json("/object/list-v2/private", &app.user(alice), body)
            .await;
        let error = assert_error(r, StatusCode::BAD_REQUEST, "400", "InvalidRequest").await;
        assert_eq!(error["message"], message);
    }
    let r = app
        .post_json(
            "/object/list-v2/private",
            &app.user(alice),
            json!({ "cursor": "bm9wZQ==" }),
        )
        .await;
    let error = assert_error(r, StatusCode::BAD_REQUEST, "400", "InvalidParameter").await;
    assert_eq!(error["message"], "Invalid Parameter continuation token");
}

/// Ordered by a time, with the delimiter, the platform still folds: a row
/// per folder whose times are the earliest `created_at` of its objects,
/// paged by (time, name) without repeating or losing an entry.
#[tokio::test]
async fn delimited_listings_by_time_fold_folders_at_their_first_object() {
    let app = spawn_app().await;
    // created in this order, a little apart: a.txt, b/ (first b/1.txt), d.txt, e/
    for name in NAMES {
        let r = app
            .upload(&app.service, "public-bucket", name, b"x", "text/plain")
            .await;
        assert_eq!(r.status(), 200, "{name}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let flat = list(&app, &app.service, "public-bucket", json!({})).await;
    let created = |name: &str| {
        flat["objects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
            .unwrap()["created_at"]
            .clone()
    };
    let body = |order: &str, limit: usize, cursor: &Value| {
        let mut body = json!({ "with_delimiter": true, "limit": limit,
                               "sortBy": { "column": "created_at", "order": order } });
        if !cursor.is_null() {
            body["cursor"] = cursor.clone();
        }
        body
    };
    let all = list(
        &app,
        &app.service,
        "public-bucket",
        body("asc", 10, &Value::Null),
    )
    .await;
    assert_eq!(names(&all, "objects"), ["a.txt", "d.txt"]);
    assert_eq!(names(&all, "folders"), ["b/", "e/"]);
    assert_eq!(
        all["folders"][0],
        json!({ "key": "b", "name": "b/", "id": null, "metadata": null,
                "created_at": created("b/1.txt"), "updated_at": created("b/1.txt"),
                "last_accessed_at": null })
    );
    assert_eq!(all["objects"][1]["key"], "d.txt");

    // one entry a page, both ways: every entry once, in time order
    for (order, expected) in [
        ("asc", ["a.txt", "b/", "d.txt", "e/"]),
        ("desc", ["e/", "d.txt", "b/", "a.txt"]),
    ] {
        let mut seen = Vec::new();
        let mut cursor = Value::Null;
        for _ in 0..10 {
            let page = list(&app, &app.service, "public-bucket", body(order, 1, &cursor)).await;
            let mut here = names(&page, "folders");
            here.extend(names(&page, "objects"));
            assert_eq!(here.len(), 1, "{page}");
            if page["hasNext"] == true {
                // a folder is named without its slash, as the platform names it
                assert_eq!(page["nextCursorKey"], here[0].trim_end_matches('/'));
            }
            seen.extend(here);
            if page["hasNext"] == false {
                break;
            }
            cursor = page["nextCursor"].clone();
        }
        assert_eq!(seen, expected, "{order}");
    }

    // inside a folder: its subfolder is keyed at the prefix's depth
    let inside = list(
        &app,
        &app.service,
        "public-bucket",
        json!({ "with_delimiter": true, "prefix": "b/",
                "sortBy": { "column": "updated_at", "order": "asc" } }),
    )
    .await;
    assert_eq!(names(&inside, "objects"), ["b/1.txt", "b/2.txt"]);
    assert_eq!(names(&inside, "folders"), ["b/c/"]);
    assert_eq!(inside["folders"][0]["key"], "c");
    assert_eq!(inside["folders"][0]["created_at"], created("b/c/3.txt"));
}
