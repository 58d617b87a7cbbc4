//! hints: PostgREST v14's "Perhaps you meant ..." hints of PGRST205 and
//! PGRST200 (schema/0050_hints.sql), and the `Range` header, which pages
//! GET only.
//!
//! Truth: PostgREST's source (v14), as its documentation only names the
//! codes: Error.hs `TableNotFound`/`tableNotFoundHint` (the closest table
//! or view of the schema, fuzzy score at least 0.75),
//! `NoRelBetween`/`noRelBetweenHint` (the closest related table of the
//! parent, else the closest table with relationships instead of the
//! parent), test/spec/Feature/Query/ErrorSpec.hs and QuerySpec.hs;
//! ApiRequest.hs `getRanges` for `Range`.

use serde_json::{Value, json};

use crate::spawn;

fn error(code: &str, message: &str, details: Value, hint: Value) -> Value {
    json!({"code": code, "message": message, "details": details, "hint": hint})
}

fn no_table(name: &str, hint: Value) -> Value {
    error(
        "PGRST205",
        &format!("Could not find the table 'public.{name}' in the schema cache"),
        Value::Null,
        hint,
    )
}

fn no_rel(parent: &str, child: &str, embed_hint: Option<&str>, hint: Value) -> Value {
    let using = embed_hint.map_or(String::new(), |h| format!(" using the hint '{h}'"));
    error(
        "PGRST200",
        &format!(
            "Could not find a relationship between '{parent}' and '{child}' in the schema cache"
        ),
        json!(format!(
            "Searched for a foreign key relationship between '{parent}' and '{child}'{using} in the schema 'public', but no matches were found."
        )),
        hint,
    )
}

#[tokio::test]
async fn table_not_found_hints_the_closest_table_or_view() {
    let app = spawn().await;
    // ErrorSpec "show hint when similarity score is at least 75%".
    for (path, name, hint) in [
        ("/hnt_projectx", "hnt_projectx", "hnt_projects"),
        ("/hnt_projecxx", "hnt_projecxx", "hnt_projects"),
        ("/hnt_taskz?select=id", "hnt_taskz", "hnt_tasks"),
        // Views are searched too.
        ("/hnt_reprt", "hnt_reprt", "hnt_report"),
    ] {
        let r = app.get(path).await;
        assert_eq!(r.status, 404, "{path}: {}", r.text);
        assert_eq!(
            r.header("content-type"),
            Some("application/json; charset=utf-8")
        );
        assert_eq!(
            r.json(),
            no_table(
                name,
                json!(format!("Perhaps you meant the table 'public.{hint}'"))
            ),
            "{path}"
        );
    }
    // Below 75% (QuerySpec: a partition's name against its parent table's),
    // or nothing alike: no hint.
    for name in ["hnt_tasks_2026_01_x", "qqqzzzxxx"] {
        let r = app.get(&format!("/{name}")).await;
        assert_eq!(
            (r.status, r.json()),
            (404, no_table(name, Value::Null)),
            "{name}"
        );
    }
    // The same error for a write to an unknown table.
    let r = app
        .req("POST", "/hnt_clientsx", None, &[], Some(json!({"id": 3})))
        .await;
    assert_eq!(
        (r.status, r.json()),
        (
            404,
            no_table(
                "hnt_clientsx",
                json!("Perhaps you meant the table 'public.hnt_clients'")
            )
        )
    );
    // Byte for byte: PostgREST's key order and no spaces.
    let r = app.get("/hnt_projectx").await;
    assert_eq!(
        r.text,
        r#"{"code":"PGRST205","details":null,"hint":"Perhaps you meant the table 'public.hnt_projects'","message":"Could not find the table 'public.hnt_projectx' in the schema cache"}"#
    );
}

#[tokio::test]
async fn no_relationship_hints_the_closest_related_table() {
    let app = spawn().await;
    // The parent has relationships: the closest of its related tables.
    let r = app.get("/hnt_projects?select=id,hnt_task(id)").await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    assert_eq!(
        r.json(),
        no_rel(
            "hnt_projects",
            "hnt_task",
            None,
            json!("Perhaps you meant 'hnt_tasks' instead of 'hnt_task'.")
        )
    );
    // In a nested embed the parent is the embedded table.
    let r = app
        .get("/hnt_clients?select=id,hnt_projects(id,hnt_taks(id))")
        .await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            no_rel(
                "hnt_projects",
                "hnt_taks",
                None,
                json!("Perhaps you meant 'hnt_tasks' instead of 'hnt_taks'.")
            )
        )
    );
    // Many-to-one side too, with an embed hint that names nothing.
    let r = app
        .get("/hnt_projects?select=id,hnt_clientss!client_id(id)")
        .await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            no_rel(
                "hnt_projects",
                "hnt_clientss",
                Some("client_id"),
                json!("Perhaps you meant 'hnt_clients' instead of 'hnt_clientss'.")
            )
        )
    );
    // The related table itself with a hint that names no key: the table is
    // found, so there is nothing to suggest (ErrorSpec/EmbedDisambiguation).
    let r = app.get("/hnt_projects?select=id,hnt_tasks!nokey(id)").await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            no_rel("hnt_projects", "hnt_tasks", Some("nokey"), Value::Null)
        )
    );
    // Nothing close.
    let r = app.get("/hnt_projects?select=id,qqqzzzxxx(id)").await;
    assert_eq!(
        (r.status, r.json()),
        (400, no_rel("hnt_projects", "qqqzzzxxx", None, Value::Null))
    );
    // A parent without any relationship: the closest table that has some,
    // instead of the parent (QuerySpec "cannot request a partition as
    // parent from a partitioned table").
    let r = app.get("/hnt_client?select=id,hnt_projects(id)").await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            no_rel(
                "hnt_client",
                "hnt_projects",
                None,
                json!("Perhaps you meant 'hnt_clients' instead of 'hnt_client'.")
            )
        )
    );
    // Byte for byte.
    let r = app.get("/hnt_projects?select=id,hnt_task(id)").await;
    assert_eq!(
        r.text,
        r#"{"code":"PGRST200","details":"Searched for a foreign key relationship between 'hnt_projects' and 'hnt_task' in the schema 'public', but no matches were found.","hint":"Perhaps you meant 'hnt_tasks' instead of 'hnt_task'.","message":"Could not find a relationship between 'hnt_projects' and 'hnt_task' in the schema cache"}"#
    );
}

#[tokio::test]
async fn range_header_pages_get_only() {
    let app = spawn().await;
    let count = ("prefer", "count=exact");
    // GET: the Range header pages.
    let r = app
        .req(
            "GET",
            "/hnt_tasks?select=id&order=id",
            None,
            &[count, ("range", "0-1")],
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.json()),
        (206, json!([{"id": 1}, {"id": 2}])),
        "{}",
        r.text
    );
    assert_eq!(r.header("content-range"), Some("0-1/5"));
    // HEAD: ignored (RFC 9110; PostgREST ApiRequest.hs `getRanges`), so
    // every row is counted in and the status is 200.
    let r = app
        .req(
            "HEAD",
            "/hnt_tasks?select=id&order=id",
            None,
            &[count, ("range", "0-1")],
            None,
        )
        .await;
    assert_eq!((r.status, r.text.as_str()), (200, ""));
    assert_eq!(r.header("content-range"), Some("0-4/5"));
    // An unsatisfiable Range is an error on GET, nothing on HEAD.
    let r = app
        .req(
            "GET",
            "/hnt_tasks?select=id",
            None,
            &[count, ("range", "9-")],
            None,
        )
        .await;
    assert_eq!(r.status, 416, "{}", r.text);
    assert_eq!(r.code(), "PGRST103");
    let r = app
        .req(
            "HEAD",
            "/hnt_tasks?select=id",
            None,
            &[count, ("range", "9-")],
            None,
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-range"), Some("0-4/5"));
    // The query parameters still page a HEAD.
    let r = app
        .req(
            "HEAD",
            "/hnt_tasks?select=id&limit=2&offset=1",
            None,
            &[count],
            None,
        )
        .await;
    assert_eq!(r.status, 206);
    assert_eq!(r.header("content-range"), Some("1-2/5"));
}
