//! writes: PostgREST v14's inserts, upserts and PUT (status 200 vs 201),
//! `Prefer: missing=default`, `Preference-Applied` (which and in what
//! order), the status text of custom errors, and limited writes on a view
//! without a key.
//!
//! Where the documentation is silent the source followed is named beside
//! the case (PostgREST v14.17: Response.hs, Statements.hs, Preferences.hs,
//! Error.hs, ApiRequest/Payload.hs).

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::spawn;
use crate::support::{App, Res};

async fn write(app: &App, method: &str, path: &str, prefer: &str, body: Option<Value>) -> Res {
    let token = app.service();
    let headers: Vec<(&str, &str)> = if prefer.is_empty() {
        Vec::new()
    } else {
        vec![("prefer", prefer)]
    };
    app.req(method, path, Some(&token), &headers, body).await
}

async fn rows(app: &App, path: &str) -> Value {
    let r = app.get_as(path, &app.service()).await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.json()
}

/// Status, Content-Type, Content-Range, Preference-Applied and body text.
fn summary(r: &Res) -> (u16, Option<&str>, Option<&str>, Option<&str>, &str) {
    (
        r.status,
        r.header("content-type"),
        r.header("content-range"),
        r.header("preference-applied"),
        r.text.as_str(),
    )
}

const JSON: Option<&str> = Some("application/json; charset=utf-8");

/// A body as Postgres' `json_agg` writes it (PostgREST's bodies are
/// `json_agg`'s text): elements separated by `, ` and a newline.
fn json_agg_text(compact: &str) -> String {
    compact.replace("}, {", "}, \n {")
}

// Upsert status: PostgREST counts inserted rows in the statement and answers
// 200 when a merging upsert inserted none, else 201 (Response.hs,
// MutationCreate: `isInsertIfGTZero`).
#[tokio::test]
async fn merge_duplicates_answers_200_when_nothing_was_inserted() {
    let app = spawn().await;
    let rep = "resolution=merge-duplicates, return=representation";

    // Every row merged: 200.
    let r = write(
        &app,
        "POST",
        "/wr_items",
        rep,
        Some(json!([{"id": 1, "name": "uno", "qty": 11}])),
    )
    .await;
    assert_eq!(
        summary(&r),
        (
            200,
            JSON,
            Some("*/*"),
            Some("resolution=merge-duplicates, return=representation"),
            r#"[{"id":1,"name":"uno","qty":11}]"#
        )
    );

    // One merged, one inserted (bulk): 201.
    let r = write(
        &app,
        "POST",
        "/wr_items",
        rep,
        Some(json!([{"id": 2, "name": "dos", "qty": 22}, {"id": 3, "name": "tres", "qty": 33}])),
    )
    .await;
    assert_eq!(
        summary(&r),
        (
            201,
            JSON,
            Some("*/*"),
            Some("resolution=merge-duplicates, return=representation"),
            json_agg_text(r#"[{"id":2,"name":"dos","qty":22}, {"id":3,"name":"tres","qty":33}]"#)
                .as_str()
        )
    );

    // Only inserted, single object: 201.
    let r = write(
        &app,
        "POST",
        "/wr_items",
        rep,
        Some(json!({"id": 4, "name": "cuatro", "qty": 4})),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (201, json!([{"id": 4, "name": "cuatro", "qty": 4}]))
    );

    // Without a body (return=minimal, the default): the same rule, 200 then 201.
    let r = write(
        &app,
        "POST",
        "/wr_items",
        "resolution=merge-duplicates",
        Some(json!({"id": 4, "name": "four", "qty": 4})),
    )
    .await;
    assert_eq!(
        summary(&r),
        (
            200,
            None,
            Some("*/*"),
            Some("resolution=merge-duplicates"),
            ""
        )
    );
    let r = write(
        &app,
        "POST",
        "/wr_items?select=id",
        "resolution=merge-duplicates, count=exact",
        Some(json!([{"id": 4, "name": "four", "qty": 4}, {"id": 5, "name": "five", "qty": 5}])),
    )
    .await;
    assert_eq!(
        summary(&r),
        (
            201,
            None,
            Some("*/2"),
            Some("resolution=merge-duplicates, count=exact"),
            ""
        )
    );

    // Nothing at all (an empty array): nothing inserted, 200.
    let r = write(&app, "POST", "/wr_items", rep, Some(json!([]))).await;
    assert_eq!((r.status, r.text.as_str()), (200, "[]"));

    assert_eq!(
        rows(&app, "/wr_items?order=id").await,
        json!([
            {"id": 1, "name": "uno", "qty": 11},
            {"id": 2, "name": "dos", "qty": 22},
            {"id": 3, "name": "tres", "qty": 33},
            {"id": 4, "name": "four", "qty": 4},
            {"id": 5, "name": "five", "qty": 5}
        ])
    );

    // A plain insert that conflicts is still a 409, not a merge.
    let r = write(
        &app,
        "POST",
        "/wr_items",
        "",
        Some(json!({"id": 1, "name": "x"})),
    )
    .await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert_eq!(r.code(), "23505");
}

#[tokio::test]
async fn upsert_on_conflict_and_ignore_duplicates() {
    let app = spawn().await;

    // on_conflict on a unique column: merged -> 200, the identity key kept.
    let r = write(
        &app,
        "POST",
        "/wr_tags?on_conflict=slug&select=id,slug,label",
        "resolution=merge-duplicates, return=representation",
        Some(json!([{"slug": "red", "label": "Rouge"}])),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!([{"id": 1, "slug": "red", "label": "Rouge"}]))
    );
    let r = write(
        &app,
        "POST",
        "/wr_tags?on_conflict=slug&select=slug",
        "resolution=merge-duplicates, return=representation",
        Some(json!([{"slug": "red", "label": "Rot"}, {"slug": "blue", "label": "Blue"}])),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (201, json!([{"slug": "red"}, {"slug": "blue"}]))
    );

    // ignore-duplicates: always 201; the duplicate is neither written nor returned.
    let r = write(
        &app,
        "POST",
        "/wr_tags?on_conflict=slug&select=slug,label",
        "resolution=ignore-duplicates, return=representation",
        Some(json!([{"slug": "red", "label": "ignored"}])),
    )
    .await;
    assert_eq!(
        summary(&r),
        (
            201,
            JSON,
            Some("*/*"),
            Some("resolution=ignore-duplicates, return=representation"),
            "[]"
        )
    );
    let r = write(
        &app,
        "POST",
        "/wr_tags?on_conflict=slug&select=slug,label",
        "resolution=ignore-duplicates, return=representation",
        Some(json!([{"slug": "red", "label": "ignored"}, {"slug": "green", "label": "Green"}])),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (201, json!([{"slug": "green", "label": "Green"}]))
    );
    assert_eq!(
        rows(&app, "/wr_tags?select=slug,label&order=id").await,
        json!([
            {"slug": "red", "label": "Rot"},
            {"slug": "blue", "label": "Blue"},
            {"slug": "green", "label": "Green"}
        ])
    );

    // An unknown on_conflict column is Postgres' 42703, as PostgREST lets it be.
    let r = write(
        &app,
        "POST",
        "/wr_tags?on_conflict=nope",
        "resolution=merge-duplicates",
        Some(json!({"slug": "x"})),
    )
    .await;
    assert_eq!(
        (r.status, r.code()),
        (400, "42703".to_owned()),
        "{}",
        r.text
    );
}

// With neither a primary key nor on_conflict there is nothing to resolve on:
// PostgREST inserts plainly and does not report the preference
// (Response.hs `responsePreferences`, QueryBuilder.hs: no ON CONFLICT).
#[tokio::test]
async fn resolution_without_a_key_is_a_plain_insert() {
    let app = spawn().await;
    let r = write(
        &app,
        "POST",
        "/wr_log",
        "resolution=merge-duplicates, return=representation",
        Some(json!([{"msg": "a"}, {"msg": "a"}])),
    )
    .await;
    assert_eq!(
        summary(&r),
        (
            201,
            JSON,
            Some("*/*"),
            Some("return=representation"),
            json_agg_text(r#"[{"msg":"a"}, {"msg":"a"}]"#).as_str()
        )
    );
    let r = write(
        &app,
        "POST",
        "/wr_log",
        "resolution=ignore-duplicates",
        Some(json!({"msg": "b"})),
    )
    .await;
    assert_eq!(summary(&r), (201, None, Some("*/*"), None, ""));
    assert_eq!(
        rows(&app, "/wr_log").await.as_array().map(Vec::len),
        Some(3)
    );
}

// PUT: a single-row upsert by primary key. 201 inserted / 200 merged with a
// body, 204 without (Response.hs, MutationSingleUpsert); PGRST105, 114, 115
// as Error.hs words them; `missing=` and `resolution=` do not apply to PUT.
#[tokio::test]
async fn put_upserts_one_row() {
    let app = spawn().await;
    let r = write(
        &app,
        "PUT",
        "/wr_items?id=eq.9",
        "return=representation, missing=default",
        Some(json!({"id": 9, "name": "nine", "qty": 9})),
    )
    .await;
    assert_eq!(
        summary(&r),
        (
            201,
            JSON,
            Some("*/*"),
            Some("return=representation"),
            r#"[{"id":9,"name":"nine","qty":9}]"#
        )
    );
    let r = write(
        &app,
        "PUT",
        "/wr_items?id=eq.9",
        "return=representation",
        Some(json!({"id": 9, "name": "nueve", "qty": 90})),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!([{"id": 9, "name": "nueve", "qty": 90}]))
    );
    let r = write(
        &app,
        "PUT",
        "/wr_items?id=eq.10",
        "",
        Some(json!({"id": 10, "name": "ten", "qty": 10})),
    )
    .await;
    assert_eq!(summary(&r), (204, None, Some("*/*"), None, ""));
    let r = write(
        &app,
        "PUT",
        "/wr_items?id=eq.10",
        "return=minimal",
        Some(json!({"id": 10, "name": "diez", "qty": 10})),
    )
    .await;
    assert_eq!(
        summary(&r),
        (204, None, Some("*/*"), Some("return=minimal"), "")
    );

    // The payload's key must be the URL's.
    let r = write(
        &app,
        "PUT",
        "/wr_items?id=eq.11",
        "",
        Some(json!({"id": 12, "name": "x", "qty": 1})),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            json!({"code": "PGRST115", "details": null, "hint": null,
                   "message": "Payload values do not match URL in primary key column(s)"})
        )
    );
    // Filters: all and only the primary key, with eq.
    for path in [
        "/wr_items",
        "/wr_items?name=eq.x",
        "/wr_items?id=gt.1",
        "/wr_items?id=eq.1&name=eq.x",
        "/wr_log?msg=eq.x",
    ] {
        let r = write(&app, "PUT", path, "", Some(json!({"id": 1, "name": "x"}))).await;
        assert_eq!(
            (r.status, r.json()),
            (
                405,
                json!({"code": "PGRST105", "details": null, "hint": null,
                       "message": "Filters must include all and only primary key columns with 'eq' operators"})
            ),
            "{path}"
        );
    }
    let r = write(
        &app,
        "PUT",
        "/wr_items?id=eq.1&limit=1",
        "",
        Some(json!({"id": 1, "name": "x"})),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            json!({"code": "PGRST114", "details": null, "hint": null,
                   "message": "limit/offset querystring parameters are not allowed for PUT"})
        )
    );
    assert_eq!(
        rows(&app, "/wr_items?id=gt.2&order=id").await,
        json!([{"id": 9, "name": "nueve", "qty": 90}, {"id": 10, "name": "diez", "qty": 10}])
    );
}

// missing=default: an absent key takes the column's default, evaluated per
// row (volatile defaults, sequences, identity), a domain's default when the
// column has none; present keys (even null) are kept. PostgREST builds each
// row as `jsonb_build_object(<column>, <default>, …) || <row>`
// (Query/SqlFragment.hs `fromJsonBodyF`), so every default of the named
// columns runs for every row, a row that brings its own key included: a
// sequence draws a value for each row of the batch.
#[tokio::test]
async fn missing_default_on_insert() {
    let app = spawn().await;
    let select = "select=id,ticket,title,status,note,title_len";
    let r = write(
        &app,
        "POST",
        &format!("/wr_defaults?columns=id,uid,ticket,created,title,status,note&{select}"),
        "missing=default, return=representation",
        Some(json!([{"title": "a"}, {"note": "n"}, {"title": "ccc", "status": null}])),
    )
    .await;
    assert_eq!(
        summary(&r),
        (
            201,
            JSON,
            Some("*/*"),
            Some("missing=default, return=representation"),
            json_agg_text(r#"[{"id":1,"ticket":100,"title":"a","status":"draft","note":null,"title_len":1}, {"id":2,"ticket":101,"title":"untitled","status":"draft","note":"n","title_len":8}, {"id":3,"ticket":102,"title":"ccc","status":null,"note":null,"title_len":3}]"#).as_str()
        )
    );
    // Volatile defaults ran once per row.
    let all = rows(&app, "/wr_defaults?select=uid,created&order=id").await;
    let uids: std::collections::BTreeSet<&str> = all
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["uid"].as_str())
        .collect();
    assert_eq!(uids.len(), 3, "{all}");
    assert!(all[0]["created"].is_string(), "{all}");

    // A single object, and `columns=` naming a column the body lacks.
    let r = write(
        &app,
        "POST",
        &format!("/wr_defaults?columns=title,note&{select}"),
        "missing=default, return=representation",
        Some(json!({"note": "only"})),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            201,
            json!([{"id": 4, "ticket": 103, "title": "untitled", "status": "draft",
                    "note": "only", "title_len": 8}])
        )
    );
    // An explicit id is kept, and its row still draws an identity value
    // (5): the next row gets 6, as PostgREST v14 answers.
    let r = write(
        &app,
        "POST",
        "/wr_defaults?columns=id,title&select=id,title",
        "missing=default, return=representation",
        Some(json!([{"id": 50, "title": "fifty"}, {"title": "next"}])),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            201,
            json!([{"id": 50, "title": "fifty"}, {"id": 6, "title": "next"}])
        )
    );

    // Empty objects: one row of defaults each.
    let r = write(
        &app,
        "POST",
        "/wr_defaults?select=id,title",
        "return=representation",
        Some(json!([{}, {}])),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            201,
            json!([{"id": 7, "title": "untitled"}, {"id": 8, "title": "untitled"}])
        )
    );
}

// Many defaulted columns at once (more than 50: PostgreSQL passes a
// function at most 100 arguments).
#[tokio::test]
async fn missing_default_on_many_columns() {
    let app = spawn().await;
    let columns: Vec<String> = (1..=60).map(|i| format!("c{i}")).collect();
    let r = write(
        &app,
        "POST",
        &format!(
            "/wr_wide?columns=id,{}&select=id,c1,c50,c51,c60",
            columns.join(",")
        ),
        "missing=default, return=representation",
        Some(json!([{"id": 1, "c51": 0}, {"id": 2}])),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            201,
            json!([
                {"id": 1, "c1": 1, "c50": 50, "c51": 0, "c60": 60},
                {"id": 2, "c1": 1, "c50": 50, "c51": 51, "c60": 60}
            ])
        ),
        "{}",
        r.text
    );
}

#[tokio::test]
async fn missing_null_writes_null() {
    let app = spawn().await;
    // missing=null (the default): the absent key is NULL; the NOT NULL column
    // refuses it, in Postgres' words. `missing=null` is echoed too.
    let r = write(
        &app,
        "POST",
        "/wr_serial?columns=id,label",
        "missing=null",
        Some(json!([{"id": 1}])),
    )
    .await;
    assert_eq!(
        (r.status, r.header("preference-applied"), r.json()),
        (
            400,
            None,
            json!({"code": "23502", "details": "Failing row contains (1, null).", "hint": null,
                   "message": "null value in column \"label\" of relation \"wr_serial\" violates not-null constraint"})
        )
    );
    let r = write(
        &app,
        "POST",
        "/wr_serial?columns=id,label&select=id,label",
        "missing=null, return=representation",
        Some(json!([{"id": 10, "label": "ten"}])),
    )
    .await;
    assert_eq!(
        summary(&r),
        (
            201,
            JSON,
            Some("*/*"),
            Some("missing=null, return=representation"),
            r#"[{"id":10,"label":"ten"}]"#
        )
    );
    // A serial key's default is its sequence.
    let r = write(
        &app,
        "POST",
        "/wr_serial?columns=id,label&select=id,label",
        "missing=default, return=representation",
        Some(json!([{"label": "auto"}, {}])),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            201,
            json!([{"id": 1, "label": "auto"}, {"id": 2, "label": "x"}])
        ),
        "{}",
        r.text
    );
}

// Without columns=, every object of a bulk body must have the same keys
// (PostgREST ApiRequest/Payload.hs, PGRST102).
#[tokio::test]
async fn bulk_insert_needs_uniform_keys_without_columns() {
    let app = spawn().await;
    let r = write(
        &app,
        "POST",
        "/wr_items",
        "missing=default",
        Some(json!([{"id": 5, "name": "a"}, {"id": 6}])),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            json!({"code": "PGRST102", "details": null, "hint": null,
                   "message": "All object keys must match"})
        )
    );
    assert_eq!(rows(&app, "/wr_items?select=id&id=gt.2").await, json!([]));
}

#[tokio::test]
async fn missing_default_on_upsert() {
    let app = spawn().await;
    // The absent qty takes its default in the merged row too.
    let r = write(
        &app,
        "POST",
        "/wr_items?columns=id,name,qty",
        "resolution=merge-duplicates, missing=default, return=representation",
        Some(json!([{"id": 1, "name": "uno"}, {"id": 7, "name": "siete"}])),
    )
    .await;
    assert_eq!(
        summary(&r),
        (
            201,
            JSON,
            Some("*/*"),
            Some("resolution=merge-duplicates, missing=default, return=representation"),
            json_agg_text(r#"[{"id":1,"name":"uno","qty":1}, {"id":7,"name":"siete","qty":1}]"#)
                .as_str()
        )
    );
    let r = write(
        &app,
        "POST",
        "/wr_items?columns=id,name,qty",
        "resolution=merge-duplicates, missing=default, return=representation",
        Some(json!({"id": 2, "name": "dos"})),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!([{"id": 2, "name": "dos", "qty": 1}]))
    );
    // ignore-duplicates with missing=default: new rows get defaults.
    let r = write(
        &app,
        "POST",
        "/wr_tags?on_conflict=slug&columns=id,slug,label&select=id,slug",
        "resolution=ignore-duplicates, missing=default, return=representation",
        Some(json!([{"slug": "red"}, {"slug": "new"}])),
    )
    .await;
    assert_eq!(
        (r.status, r.header("preference-applied"), r.json()),
        (
            201,
            Some("resolution=ignore-duplicates, missing=default, return=representation"),
            // The conflicting row drew an identity value too (id 2).
            json!([{"id": 3, "slug": "new"}])
        )
    );
    // merge-duplicates: every row draws an identity value (4, 5, 6), the
    // row with its own id too; a merged row without one takes the value
    // it drew (`DO UPDATE SET "id" = EXCLUDED."id"`), as PostgREST v14.
    let r = write(
        &app,
        "POST",
        "/wr_tags?on_conflict=slug&columns=id,slug,label&select=id,slug,label",
        "resolution=merge-duplicates, missing=default, return=representation",
        Some(json!([
            {"id": 1, "slug": "red", "label": "Rouge"},
            {"slug": "blue"},
            {"slug": "new", "label": "Neu"}
        ])),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            201,
            json!([
                {"id": 1, "slug": "red", "label": "Rouge"},
                {"id": 5, "slug": "blue", "label": null},
                {"id": 6, "slug": "new", "label": "Neu"}
            ])
        ),
        "{}",
        r.text
    );
}

// PATCH with columns=: a named column absent from the body is set to NULL,
// or to its default with missing=default (PostgREST UpdateSpec; the
// defaults as Query/SqlFragment.hs `fromJsonBodyF` builds them for one
// object).
#[tokio::test]
async fn missing_default_on_update() {
    let app = spawn().await;
    let r = write(
        &app,
        "PATCH",
        "/wr_items?id=eq.1&columns=name,qty",
        "missing=default, return=representation",
        Some(json!({"name": "uno"})),
    )
    .await;
    assert_eq!(
        summary(&r),
        (
            200,
            JSON,
            Some("0-0/*"),
            Some("missing=default, return=representation"),
            r#"[{"id":1,"name":"uno","qty":1}]"#
        )
    );
    // Keys outside columns= are ignored.
    let r = write(
        &app,
        "PATCH",
        "/wr_items?id=eq.2&columns=name",
        "return=representation",
        Some(json!({"name": "dos", "qty": 99})),
    )
    .await;
    assert_eq!(r.json(), json!([{"id": 2, "name": "dos", "qty": 20}]));

    // The defaults are evaluated once for the body, as PostgREST lays the
    // one object over them: every row changed takes the same value, and a
    // default of a key the body has runs too.
    let r = write(
        &app,
        "POST",
        "/wr_defaults?select=id,ticket",
        "return=representation",
        Some(json!([{"title": "a"}, {"title": "b"}])),
    )
    .await;
    assert_eq!(
        r.json(),
        json!([{"id": 1, "ticket": 100}, {"id": 2, "ticket": 101}])
    );
    let r = write(
        &app,
        "PATCH",
        "/wr_defaults?id=in.(1,2)&columns=ticket,title&select=id,ticket,title",
        "missing=default, return=representation",
        Some(json!({"title": "same"})),
    )
    .await;
    let mut changed = r.json();
    if let Some(rows) = changed.as_array_mut() {
        rows.sort_by_key(|row| row["id"].as_i64());
    }
    assert_eq!(
        (r.status, changed),
        (
            200,
            json!([{"id": 1, "ticket": 102, "title": "same"}, {"id": 2, "ticket": 102, "title": "same"}])
        ),
        "{}",
        r.text
    );
    let r = write(
        &app,
        "PATCH",
        "/wr_defaults?id=eq.1&columns=ticket&select=ticket",
        "missing=default, return=representation",
        Some(json!({"ticket": 7})),
    )
    .await;
    assert_eq!(r.json(), json!([{"ticket": 7}]));
    let r = write(
        &app,
        "POST",
        "/wr_defaults?select=ticket",
        "return=representation",
        Some(json!({"title": "c"})),
    )
    .await;
    assert_eq!(r.json(), json!([{"ticket": 104}]), "103 went to the PATCH");
}

// Preference-Applied: PostgREST's order (Preferences.hs prefAppliedHeader:
// resolution, missing, return, count, tx, handling, timezone, max-affected)
// and only what applies to the request (Response.hs responsePreferences);
// the first of each kind wins.
#[tokio::test]
async fn preference_applied_order_and_scope() {
    let app = spawn().await;
    let r = write(
        &app,
        "POST",
        "/wr_items",
        "timezone=UTC, handling=strict, tx=rollback, count=exact, return=minimal, missing=default, resolution=merge-duplicates",
        Some(json!({"id": 1, "name": "x", "qty": 1})),
    )
    .await;
    assert_eq!(
        (r.status, r.header("preference-applied")),
        (
            200,
            Some(
                "resolution=merge-duplicates, missing=default, return=minimal, count=exact, tx=rollback, handling=strict, timezone=UTC"
            )
        ),
        "{}",
        r.text
    );
    // tx=rollback: nothing changed.
    assert_eq!(
        rows(&app, "/wr_items?id=eq.1&select=name").await,
        json!([{"name": "one"}])
    );

    // PATCH: max-affected with handling=strict; resolution does not apply.
    let r = write(
        &app,
        "PATCH",
        "/wr_items?id=eq.1",
        "max-affected=5, handling=strict, resolution=merge-duplicates, return=minimal, missing=null, count=exact",
        Some(json!({"qty": 2})),
    )
    .await;
    assert_eq!(
        (r.status, r.header("preference-applied")),
        (
            204,
            Some("missing=null, return=minimal, count=exact, handling=strict, max-affected=5")
        )
    );
    // DELETE: no missing=, max-affected only with handling=strict, lenient echoed.
    let r = write(
        &app,
        "DELETE",
        "/wr_items?id=eq.2",
        "missing=default, max-affected=1, handling=lenient, return=representation",
        None,
    )
    .await;
    assert_eq!(
        (r.status, r.header("preference-applied"), r.json()),
        (
            200,
            Some("return=representation, handling=lenient"),
            json!([{"id": 2, "name": "two", "qty": 20}])
        )
    );
    // GET: count, handling, timezone; return/missing/resolution do not apply.
    let r = write(
        &app,
        "GET",
        "/wr_items?select=id",
        "return=representation, count=exact, resolution=ignore-duplicates, handling=lenient, timezone=UTC, missing=default",
        None,
    )
    .await;
    assert_eq!(
        (
            r.status,
            r.header("preference-applied"),
            r.header("content-range")
        ),
        (
            200,
            Some("count=exact, handling=lenient, timezone=UTC"),
            Some("0-0/1")
        )
    );
    // RPC: return= and missing= are not applied to functions.
    let r = write(
        &app,
        "POST",
        "/rpc/wr_ping",
        "return=minimal, missing=default, tx=commit",
        Some(json!({})),
    )
    .await;
    assert_eq!(
        (r.status, r.header("preference-applied"), r.text.as_str()),
        (200, Some("tx=commit"), "1")
    );
    // The first of each kind wins; repeated headers count as one list.
    let token = app.service();
    let r = app
        .req(
            "POST",
            "/wr_items?select=id",
            Some(&token),
            &[
                ("prefer", "return=representation, count=exact"),
                ("prefer", "return=minimal, count=planned"),
            ],
            Some(json!({"id": 30, "name": "x"})),
        )
        .await;
    assert_eq!(
        summary(&r),
        (
            201,
            JSON,
            Some("*/1"),
            Some("return=representation, count=exact"),
            r#"[{"id":30}]"#
        )
    );
    // An unknown timezone is neither applied nor reported.
    let r = write(
        &app,
        "GET",
        "/wr_items?select=id&id=eq.30",
        "timezone=Mars/Olympus",
        None,
    )
    .await;
    assert_eq!((r.status, r.header("preference-applied")), (200, None));
}

// Location: only for return=headers-only and exactly one inserted row
// (PostgREST Statements.hs `locF`).
#[tokio::test]
async fn location_for_one_row_only() {
    let app = spawn().await;
    let r = write(
        &app,
        "POST",
        "/wr_items",
        "return=headers-only",
        Some(json!({"id": 40, "name": "x"})),
    )
    .await;
    assert_eq!(
        (r.status, r.header("location"), r.text.as_str()),
        (201, Some("/wr_items?id=eq.40"), "")
    );
    let r = write(
        &app,
        "POST",
        "/wr_items",
        "return=headers-only",
        Some(json!([{"id": 41, "name": "x"}, {"id": 42, "name": "y"}])),
    )
    .await;
    assert_eq!(
        (
            r.status,
            r.header("location"),
            r.header("preference-applied")
        ),
        (201, None, Some("return=headers-only"))
    );
}

/// The status line of a raw HTTP/1.1 request (reqwest does not expose a
/// non-standard reason phrase), with the body.
async fn status_line(app: &App, method: &str, path: &str) -> (String, String) {
    let authority = app
        .base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    let token = app.service();
    let mut stream = tokio::net::TcpStream::connect(&authority)
        .await
        .expect("connect");
    let request = format!(
        "{method} /rest/v1{path} HTTP/1.1\r\nHost: {authority}\r\napikey: {token}\r\nAuthorization: Bearer {token}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).await.expect("read");
    let line = raw.lines().next().unwrap_or_default().to_owned();
    let body = raw.split("\r\n\r\n").nth(1).unwrap_or_default().to_owned();
    (line, body)
}

// The status text of custom errors: `status_text` of the RAISE's detail,
// the message of a PTnnn SQLSTATE (PostgREST Error.hs, HTTP.mkStatus);
// the standard reason phrase otherwise.
#[tokio::test]
async fn custom_error_status_text() {
    let app = spawn().await;
    let (line, body) = status_line(&app, "GET", "/rpc/wr_pay?status_text=true").await;
    assert_eq!(line, "HTTP/1.1 402 Insufficient Credits");
    assert_eq!(
        serde_json::from_str::<Value>(&body).ok(),
        Some(
            json!({"code": "WR402", "details": "Quota exceeded", "hint": "Upgrade your plan",
                    "message": "Payment Required"})
        )
    );
    let r = app
        .get_as("/rpc/wr_pay?status_text=true", &app.service())
        .await;
    assert_eq!(
        (r.status, r.header("x-powered-by"), r.header("content-type")),
        (402, Some("Plinth"), JSON)
    );

    let (line, _) = status_line(&app, "GET", "/rpc/wr_pay?status_text=false").await;
    assert_eq!(line, "HTTP/1.1 402 Payment Required");

    let (line, body) = status_line(&app, "POST", "/rpc/wr_teapot").await;
    assert_eq!(line, "HTTP/1.1 418 Short and stout");
    assert_eq!(
        serde_json::from_str::<Value>(&body).ok(),
        Some(json!({"code": "PT418", "details": null, "hint": null, "message": "Short and stout"}))
    );

    // A status_text that is not a string: PGRST121 with the standard phrase.
    let (line, body) = status_line(&app, "POST", "/rpc/wr_bad_status_text").await;
    assert_eq!(line, "HTTP/1.1 500 Internal Server Error");
    assert_eq!(
        serde_json::from_str::<Value>(&body).ok(),
        Some(json!({
            "code": "PGRST121",
            "details": "Invalid JSON value for DETAIL: '{\"status\":400,\"status_text\":5,\"headers\":{}}'",
            "hint": "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.",
            "message": "Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error"
        }))
    );
}

// Limited PATCH/DELETE on a view without a key: rows are picked by the
// `order` columns; when that changes more rows than `limit`, the write is
// undone with PGRST110 (PostgREST v12 Error.hs OffLimitsChangesError; v13
// dropped limited writes and with them this code, which the gateway keeps
// for the limited writes it still offers).
#[tokio::test]
async fn limited_writes_on_a_view_without_a_key() {
    let app = spawn().await;
    // score is not unique: `limit=2` by score reaches a, b and c.
    for (method, body) in [("PATCH", Some(json!({"score": 0}))), ("DELETE", None)] {
        let r = write(
            &app,
            method,
            "/wr_scores_view?order=score&limit=2",
            "",
            body,
        )
        .await;
        assert_eq!(
            (r.status, r.json()),
            (
                400,
                json!({"code": "PGRST110", "hint": null,
                       "details": "Results contain 3 rows changed but the maximum number allowed is 2",
                       "message": "The maximum number of rows allowed to change was surpassed"})
            ),
            "{method}"
        );
    }
    assert_eq!(
        rows(&app, "/wr_scores?order=player").await,
        json!([
            {"player": "a", "score": 1}, {"player": "b", "score": 2},
            {"player": "c", "score": 2}, {"player": "d", "score": 3}
        ])
    );
    // A unique order column: exactly the page.
    let r = write(
        &app,
        "PATCH",
        "/wr_scores_view?order=player.desc&limit=2&select=player,score",
        "return=representation",
        Some(json!({"score": 9})),
    )
    .await;
    assert_eq!(
        (r.status, r.json().as_array().map(Vec::len)),
        (200, Some(2)),
        "{}",
        r.text
    );
    assert_eq!(
        rows(&app, "/wr_scores?order=player").await,
        json!([
            {"player": "a", "score": 1}, {"player": "b", "score": 2},
            {"player": "c", "score": 9}, {"player": "d", "score": 9}
        ])
    );
    let r = write(
        &app,
        "DELETE",
        "/wr_scores_view?order=player&limit=1&offset=1",
        "",
        None,
    )
    .await;
    assert_eq!(r.status, 204, "{}", r.text);
    assert_eq!(
        rows(&app, "/wr_scores?select=player&order=player").await,
        json!([{"player": "a"}, {"player": "c"}, {"player": "d"}])
    );
}
