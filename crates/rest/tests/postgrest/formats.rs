//! formats: PostgREST v14's representations: CSV out (`Accept: text/csv`)
//! and in (`Content-Type: text/csv`), GeoJSON (`Accept:
//! application/geo+json`, PostGIS), execution plans (`Accept:
//! application/vnd.pgrst.plan…`), and how `Accept` is negotiated.
//!
//! Where the documentation is silent the source followed is named beside
//! the case (PostgREST v14.17: MediaType.hs, Plan.hs `negotiateContent`,
//! Query/SqlFragment.hs `asCsvF`/`asGeoJsonF`/`explainF`, ApiRequest/
//! Payload.hs, MainTx.hs, Response.hs, Error.hs; WAI's `parseHttpAccept`).

use plinth_rest::RestConfig;
use serde_json::{Value, json};

use crate::spawn;
use crate::support::{App, Res};

async fn get(app: &App, path: &str, accept: &str) -> Res {
    app.req("GET", path, None, &[("accept", accept)], None)
        .await
}

/// A request with a raw body (the harness sends only JSON bodies).
async fn send(app: &App, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Res {
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
    let mut rb = app
        .http
        .request(method, format!("{}{}", app.base, path))
        .body(body.to_owned());
    for (k, v) in headers {
        rb = rb.header(*k, *v);
    }
    let r = rb.send().await.expect("request");
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let text = r.text().await.expect("body");
    Res {
        status,
        headers,
        text,
    }
}

fn error(r: &Res) -> (u16, Option<&str>, Value) {
    (r.status, r.header("content-type"), r.json())
}

const JSON: Option<&str> = Some("application/json; charset=utf-8");
const CSV: Option<&str> = Some("text/csv; charset=utf-8");

// PostgREST builds CSV in SQL (SqlFragment.hs `asCsvF`): the keys of the
// first row joined by `,`, a newline, then each row's record text without
// its parentheses, rows joined by newlines (no final newline). So values are
// quoted as PostgreSQL quotes record fields: `"` around a value with a
// comma, quote, newline, backslash, parenthesis or space and around the
// empty string, inner `"` and `\` doubled; null is empty; booleans `t`/`f`.
#[tokio::test]
async fn csv_quotes_values_as_postgrest() {
    let app = spawn().await;
    let r = get(&app, "/fmt_items?order=id", "text/csv").await;
    assert_eq!((r.status, r.header("content-type")), (200, CSV));
    assert_eq!(r.header("content-range"), Some("0-3/*"));
    assert_eq!(
        r.text,
        concat!(
            "id,name,note,price,active,tags,meta\n",
            "1,plain,\"a, b\",1.50,t,\"{x,y}\",\"{\"\"k\"\": 1}\"\n",
            "2,\"say \"\"hi\"\"\",\"two\nlines\",,f,{},\n",
            "3,\"back\\\\slash\",\"\",0.00,,,\"\"\"s\"\"\"\n",
            "4,\"two words\",\"(paren)\",10.00,t,\"{\"\"a b\"\"}\",\"[1, 2]\""
        )
    );

    // `select=` names the header; renamed and cast columns too.
    let r = get(
        &app,
        "/fmt_items?select=key:id,name&id=lt.3&order=id.desc",
        "text/csv",
    )
    .await;
    assert_eq!(
        (r.status, r.text.as_str()),
        (200, "key,name\n2,\"say \"\"hi\"\"\"\n1,plain")
    );

    // No rows: the header comes from the first row, so there is none; the
    // body is the lone newline.
    let r = get(&app, "/fmt_items?id=eq.99", "text/csv").await;
    assert_eq!(
        (r.status, r.header("content-type"), r.text.as_str()),
        (200, CSV, "\n")
    );
    assert_eq!(r.header("content-range"), Some("*/*"));

    // HEAD: the headers, no body.
    let r = app
        .req("HEAD", "/fmt_items", None, &[("accept", "text/csv")], None)
        .await;
    assert_eq!(
        (r.status, r.header("content-type"), r.text.as_str()),
        (200, CSV, "")
    );
}

// PostgREST reads a CSV body with cassava's `decodeByName` and turns it into
// a JSON array of string-valued objects (ApiRequest/Payload.hs
// `csvToJson`): `NULL` is null, an empty field the empty string; quoted
// fields hold commas, newlines and doubled quotes. The answer in CSV is the
// same text PostgREST's own tests expect (InsertSpec.hs "CSV insert").
#[tokio::test]
async fn csv_bodies_insert_rows() {
    let app = spawn().await;
    let headers = [
        ("content-type", "text/csv"),
        ("accept", "text/csv"),
        ("prefer", "return=representation"),
    ];
    let r = send(
        &app,
        "POST",
        "/fmt_notes",
        &headers,
        "id,body,n\n1,\"x, \"\"y\"\"\nz\",7\n2,NULL,NULL\r\n3,,NULL\n",
    )
    .await;
    assert_eq!(
        (r.status, r.header("content-type"), r.text.as_str()),
        (201, CSV, "id,body,n\n1,\"x, \"\"y\"\"\nz\",7\n2,,\n3,\"\",")
    );
    let r = app.get("/fmt_notes?order=id").await;
    assert_eq!(
        r.json(),
        json!([
            {"id": 1, "body": "x, \"y\"\nz", "n": 7},
            {"id": 2, "body": null, "n": null},
            {"id": 3, "body": "", "n": null}
        ])
    );

    // Only the selected column comes back.
    let r = send(
        &app,
        "POST",
        "/fmt_notes?select=id",
        &headers,
        "id,body\n8,a\n9,b",
    )
    .await;
    assert_eq!((r.status, r.text.as_str()), (201, "id\n8\n9"));
    assert_eq!(r.header("content-range"), Some("*/*"));

    // Without a representation: 201, no body.
    let r = send(
        &app,
        "POST",
        "/fmt_notes",
        &[("content-type", "text/csv")],
        "id,body\n10,ten",
    )
    .await;
    assert_eq!((r.status, r.text.as_str()), (201, ""));

    // A line with fewer fields than the header (PostgREST InsertSpec.hs
    // "with wrong number of columns").
    let r = send(
        &app,
        "POST",
        "/fmt_notes",
        &[("content-type", "text/csv")],
        "id,body\n11,x\n12",
    )
    .await;
    assert_eq!(
        error(&r),
        (
            400,
            JSON,
            json!({"code": "PGRST102", "message": "All lines must have same number of fields", "details": null, "hint": null})
        )
    );
    // A value of the wrong type is PostgreSQL's error, as for JSON bodies;
    // an empty field is the empty string, not null.
    for (body, value) in [("id,n\n13,many", "many"), ("id,n\n13,", "")] {
        let r = send(
            &app,
            "POST",
            "/fmt_notes",
            &[("content-type", "text/csv")],
            body,
        )
        .await;
        assert_eq!(
            error(&r),
            (
                400,
                JSON,
                json!({"code": "22P02", "message": format!("invalid input syntax for type integer: \"{value}\""), "details": null, "hint": null})
            )
        );
    }
}

// `Accept` is read as WAI's `parseHttpAccept` orders it (quality, then
// specificity) and the first type with a representation wins
// (Plan.hs `negotiateContent`); none: 406 PGRST107 naming each type as
// PostgREST writes it back (MediaType.hs `toMime`).
#[tokio::test]
async fn accept_is_negotiated_as_postgrest() {
    let app = spawn().await;
    let path = "/fmt_items?select=id&id=eq.1";
    for (accept, ct, body) in [
        ("text/csv, */*", "text/csv; charset=utf-8", "id\n1"),
        (
            "application/json;q=0.5, text/csv",
            "text/csv; charset=utf-8",
            "id\n1",
        ),
        (
            "text/unknown, */*",
            "application/json; charset=utf-8",
            "[{\"id\":1}]",
        ),
        (
            "*/*;q=0.1, text/csv;q=0.2",
            "text/csv; charset=utf-8",
            "id\n1",
        ),
        ("TEXT/CSV", "text/csv; charset=utf-8", "id\n1"),
        (
            "application/vnd.pgrst.object+json;nulls=stripped",
            "application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8",
            "{\"id\":1}",
        ),
        (
            "application/vnd.pgrst.array+json;nulls=stripped",
            "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8",
            "[{\"id\":1}]",
        ),
        (
            "application/vnd.pgrst.array+json",
            "application/json; charset=utf-8",
            "[{\"id\":1}]",
        ),
    ] {
        let r = get(&app, path, accept).await;
        assert_eq!(
            (r.status, r.header("content-type"), r.text.as_str()),
            (200, Some(ct), body),
            "{accept}"
        );
    }
    for (accept, listed) in [
        ("application/xml", "application/xml"),
        (
            "text/plain;q=0.5, application/xml",
            "application/xml, text/plain",
        ),
        ("application/*", "application/*"),
    ] {
        let r = get(&app, path, accept).await;
        assert_eq!(
            error(&r),
            (
                406,
                JSON,
                json!({"code": "PGRST107", "message": format!("None of these media types are available: {listed}"), "details": null, "hint": null})
            ),
            "{accept}"
        );
    }
}

/// Whether the test database has PostGIS (the schema creates it when the
/// server can).
async fn postgis(app: &App) -> bool {
    sqlx::query_scalar::<_, bool>(
        "select exists (select 1 from pg_extension where extname = 'postgis')",
    )
    .fetch_one(&app.test_db.db.owner)
    .await
    .expect("pg_extension")
}

// GeoJSON (docs: integrations/postgis "application/geo+json"; the SQL is
// SqlFragment.hs `asGeoJsonF`, so the bytes are PostgreSQL's
// json_build_object and PostGIS's ST_AsGeoJSON). PostgREST offers the type
// whether PostGIS is there or not and passes the database's error through
// (42883 without PostGIS, PostGIS's 22023 "geometry column is missing"
// without a geometry in the result); as issue 16 asks, Plinth answers 406
// PGRST107 in both cases, before running anything.
fn geo_unavailable(r: &Res) {
    assert_eq!(
        error(r),
        (
            406,
            JSON,
            json!({"code": "PGRST107", "message": "None of these media types are available: application/geo+json", "details": null, "hint": null})
        )
    );
}

#[tokio::test]
async fn geojson_is_a_feature_collection() {
    let app = spawn().await;
    const GEO: Option<&str> = Some("application/geo+json; charset=utf-8");
    // No geometry column in the result: 406, with or without PostGIS.
    geo_unavailable(&get(&app, "/fmt_items", "application/geo+json").await);
    if !postgis(&app).await {
        println!("formats::geojson: PostGIS is not installed: checking the error case");
        return;
    }
    println!("formats::geojson: PostGIS is installed: checking FeatureCollections");
    let r = get(&app, "/fmt_shops?order=id", "application/geo+json").await;
    assert_eq!((r.status, r.header("content-type")), (200, GEO));
    assert_eq!(
        r.text,
        concat!(
            r#"{"type" : "FeatureCollection", "features" : ["#,
            r#"{"type": "Feature", "geometry": {"type":"Point","coordinates":[-71.10044,42.373695]}, "properties": {"id": 1, "address": "1369 Cambridge St"}}, "#,
            r#"{"type": "Feature", "geometry": {"type":"Point","coordinates":[-71.10543,42.366432]}, "properties": {"id": 2, "address": "757 Massachusetts Ave"}}]}"#
        )
    );
    // The geometry must be selected; other columns are properties.
    let r = get(
        &app,
        "/fmt_shops?select=id,shop_geom&id=eq.1",
        "application/geo+json",
    )
    .await;
    assert_eq!(
        r.json(),
        json!({"type": "FeatureCollection", "features": [
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-71.10044, 42.373695]}, "properties": {"id": 1}}
        ]})
    );
    // No rows: no features.
    let r = get(&app, "/fmt_shops?id=gt.9", "application/geo+json").await;
    assert_eq!(
        (r.status, r.header("content-type"), r.text.as_str()),
        (
            200,
            GEO,
            r#"{"type" : "FeatureCollection", "features" : []}"#
        )
    );
    // A write's representation too (PostGISSpec.hs "after POST").
    let r = app
        .req(
            "POST",
            "/fmt_shops",
            None,
            &[("accept", "application/geo+json"), ("prefer", "return=representation")],
            Some(json!({"id": 3, "address": "605 W Kendall St", "shop_geom": "SRID=4326;POINT(-71.081924 42.36437)"})),
        )
        .await;
    assert_eq!((r.status, r.header("content-type")), (201, GEO));
    assert_eq!(
        r.json(),
        json!({"type": "FeatureCollection", "features": [
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-71.081924, 42.36437]}, "properties": {"id": 3, "address": "605 W Kendall St"}}
        ]})
    );
    // The geometry left out of the selection: nothing to make features of.
    geo_unavailable(&get(&app, "/fmt_shops?select=id,address", "application/geo+json").await);
    // A function's rows are left to PostGIS (PostGIS is installed here).
    let r = get(
        &app,
        "/rpc/fmt_all_shops?order=id&limit=1",
        "application/geo+json",
    )
    .await;
    assert_eq!((r.status, r.header("content-type")), (200, GEO));
    assert_eq!(
        r.json()["features"][0]["properties"],
        json!({"id": 1, "address": "1369 Cambridge St"})
    );
}

// Without PostGIS nothing can make GeoJSON: 406 for tables and functions.
// The test database may have PostGIS, so this one removes it first.
#[tokio::test]
async fn geojson_without_postgis_is_406() {
    let app = spawn().await;
    sqlx::raw_sql("drop extension if exists postgis cascade; notify pgrst, 'reload schema'")
        .execute(&app.test_db.db.owner)
        .await
        .expect("drop postgis");
    // The schema cache reloads in the background.
    let mut r = get(&app, "/rpc/fmt_count", "application/geo+json").await;
    for _ in 0..50 {
        if r.status == 406 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        r = get(&app, "/rpc/fmt_count", "application/geo+json").await;
    }
    geo_unavailable(&r);
    geo_unavailable(&get(&app, "/fmt_items?select=id", "application/geo+json").await);
}

// What PostgREST reads as a body (ApiRequest/Payload.hs): JSON, CSV and
// form bodies for tables; raw text, XML and octets only for functions;
// anything else is 400 PGRST102 "Content-Type not acceptable: <type>". A
// JSON value that is neither an object nor an array is an empty array (no
// rows); an array of anything but objects with the same keys is "All
// object keys must match"; JSON that does not parse is "Empty or invalid
// json" without details. A DELETE's body is never read.
#[tokio::test]
async fn bodies_are_read_as_postgrest_reads_them() {
    let app = spawn().await;
    for ct in [
        "text/plain",
        "application/octet-stream",
        "text/xml",
        "application/vnd.pgrst.object+json",
        "application/xml; charset=utf-8",
    ] {
        let r = send(
            &app,
            "POST",
            "/fmt_notes",
            &[("content-type", ct)],
            r#"{"id": 1}"#,
        )
        .await;
        let mime = ct.split(';').next().unwrap();
        assert_eq!(
            error(&r),
            (
                400,
                JSON,
                json!({"code": "PGRST102", "message": format!("Content-Type not acceptable: {mime}"), "details": null, "hint": null})
            ),
            "{ct}"
        );
    }
    let r = send(
        &app,
        "POST",
        "/rpc/fmt_count",
        &[("content-type", "image/png")],
        "x",
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["message"],
        "Content-Type not acceptable: image/png"
    );

    for body in ["1", "\"s\"", "null", "true", "[]"] {
        let r = send(
            &app,
            "POST",
            "/fmt_notes",
            &[
                ("content-type", "application/json"),
                ("prefer", "return=representation"),
            ],
            body,
        )
        .await;
        assert_eq!((r.status, r.text.as_str()), (201, "[]"), "{body}");
    }
    for body in ["[1, 2]", r#"[{"id": 5}, 2]"#, r#"[{"id": 5}, {"n": 2}]"#] {
        let r = send(
            &app,
            "POST",
            "/fmt_notes",
            &[("content-type", "application/json")],
            body,
        )
        .await;
        assert_eq!(
            error(&r),
            (
                400,
                JSON,
                json!({"code": "PGRST102", "message": "All object keys must match", "details": null, "hint": null})
            ),
            "{body}"
        );
    }
    let r = send(
        &app,
        "POST",
        "/fmt_notes",
        &[("content-type", "application/json")],
        "{nope",
    )
    .await;
    assert_eq!(
        error(&r),
        (
            400,
            JSON,
            json!({"code": "PGRST102", "message": "Empty or invalid json", "details": null, "hint": null})
        )
    );
    let r = send(
        &app,
        "DELETE",
        "/fmt_notes?id=eq.9",
        &[("content-type", "application/json")],
        "{nope",
    )
    .await;
    assert_eq!(r.status, 204, "{}", r.text);
    let count: i64 = sqlx::query_scalar("select count(*) from fmt_notes")
        .fetch_one(&app.test_db.db.owner)
        .await
        .unwrap();
    assert_eq!(count, 0);
}

// PostgREST resolves the table or function before it negotiates the
// representation (Plan.hs), so a missing one is 404 whatever `Accept` says.
#[tokio::test]
async fn a_missing_target_is_404_before_406() {
    let app = spawn().await;
    for path in ["/fmt_nothing", "/rpc/fmt_nothing"] {
        let r = get(&app, path, "application/xml").await;
        assert_eq!(r.status, 404, "{path}: {}", r.text);
    }
    let r = get(&app, "/fmt_items", "application/xml").await;
    assert_eq!((r.status, r.code()), (406, "PGRST107".to_owned()));
}

fn plan_json(r: &Res) -> Value {
    assert!(
        r.text.ends_with("]\n"),
        "a JSON plan and a newline: {}",
        r.text
    );
    r.json()
}

// Execution plans (docs: references/observability "Execution plan"):
// `EXPLAIN (FORMAT JSON|TEXT, <options>)` of the request's own statement,
// options in PostgREST's order whatever their order in the header
// (SqlFragment.hs `explainF`); the Content-Type names the plan's format,
// its `for` and its options (MediaType.hs `toMime`); 200 with no
// Content-Range (Response.hs `DbPlanResult`); each line of the plan ends in
// a newline (MainTx.hs `planRow`, `BS.unlines`).
#[tokio::test]
async fn plans_honour_every_option() {
    let app = spawn().await;
    let r = get(
        &app,
        "/fmt_items?id=eq.1",
        "application/vnd.pgrst.plan+json",
    )
    .await;
    assert_eq!(
        (
            r.status,
            r.header("content-type"),
            r.header("content-range")
        ),
        (
            200,
            Some("application/vnd.pgrst.plan+json; for=\"application/json\"; charset=utf-8"),
            None
        )
    );
    let plan = plan_json(&r);
    assert_eq!(plan[0]["Plan"]["Node Type"], "Aggregate");
    assert!(plan[0]["Plan"].get("Actual Total Time").is_none());
    assert!(plan[0]["Plan"].get("Output").is_none());
    assert!(plan[0].get("Settings").is_none());

    // analyze: actual times; no WAL without the option.
    let r = get(
        &app,
        "/fmt_items",
        "application/vnd.pgrst.plan+json; options=analyze",
    )
    .await;
    assert_eq!(
        r.header("content-type"),
        Some(
            "application/vnd.pgrst.plan+json; for=\"application/json\"; options=analyze; charset=utf-8"
        )
    );
    let plan = plan_json(&r);
    assert!(plan[0]["Plan"]["Actual Total Time"].is_number(), "{plan}");
    assert!(plan[0]["Plan"].get("WAL Records").is_none());
    assert!(plan[0]["Execution Time"].is_number());

    // verbose: the output columns, here PostgREST-like json_agg of the rows.
    let r = get(
        &app,
        "/fmt_items",
        "application/vnd.pgrst.plan+json; options=verbose",
    )
    .await;
    let plan = plan_json(&r);
    assert!(plan[0]["Plan"]["Output"].is_array(), "{plan}");

    // settings: the request's search_path, as set for the transaction:
    // the request's schema, then `db-extra-search-path` as it is (PreQuery.hs
    // `txVarQuery`), so v14 shows `public` twice.
    let r = get(
        &app,
        "/fmt_items",
        "application/vnd.pgrst.plan+json; options=settings",
    )
    .await;
    let plan = plan_json(&r);
    assert_eq!(
        plan[0]["Settings"]["search_path"],
        json!("\"public\", \"public\", \"extensions\"")
    );

    // buffers: block counts.
    let r = get(
        &app,
        "/fmt_items",
        "application/vnd.pgrst.plan+json; options=buffers",
    )
    .await;
    assert!(r.text.contains("\"Shared Hit Blocks\""), "{}", r.text);

    // wal with analyze (PlanSpec.hs: "WAL Records" 0 for a read); options
    // listed in PostgREST's order.
    let r = get(
        &app,
        "/fmt_items",
        "application/vnd.pgrst.plan+json; options=wal|analyze",
    )
    .await;
    assert_eq!(
        r.header("content-type"),
        Some(
            "application/vnd.pgrst.plan+json; for=\"application/json\"; options=analyze|wal; charset=utf-8"
        )
    );
    assert_eq!(plan_json(&r)[0]["Plan"]["WAL Records"], json!(0));
    // wal alone is PostgreSQL's error, as PostgREST passes it on.
    let r = get(
        &app,
        "/fmt_items",
        "application/vnd.pgrst.plan+json; options=wal",
    )
    .await;
    assert_eq!(
        error(&r),
        (
            400,
            JSON,
            json!({"code": "22023", "message": "EXPLAIN option WAL requires ANALYZE", "details": null, "hint": null})
        )
    );

    // All five at once.
    let r = get(
        &app,
        "/fmt_items",
        "application/vnd.pgrst.plan+json; options=analyze|verbose|settings|buffers|wal",
    )
    .await;
    assert_eq!(
        r.header("content-type"),
        Some(
            "application/vnd.pgrst.plan+json; for=\"application/json\"; options=analyze|verbose|settings|buffers|wal; charset=utf-8"
        )
    );
    let plan = plan_json(&r);
    let top = &plan[0]["Plan"];
    assert!(top["Actual Total Time"].is_number() && top["Output"].is_array());
    assert!(top["WAL Records"].is_number() && top["Shared Hit Blocks"].is_number());
    assert!(plan[0]["Settings"].is_object());
}

// Text plans (`+text`, and the bare vendor type): PostgreSQL's lines, each
// ended by a newline (PlanSpec.hs "text format").
#[tokio::test]
async fn text_plans_and_for() {
    let app = spawn().await;
    for accept in [
        "application/vnd.pgrst.plan",
        "application/vnd.pgrst.plan+text",
    ] {
        let r = get(&app, "/fmt_items?id=eq.1", accept).await;
        assert_eq!(
            (r.status, r.header("content-type")),
            (
                200,
                Some("application/vnd.pgrst.plan+text; for=\"application/json\"; charset=utf-8")
            ),
            "{accept}"
        );
        assert!(r.text.starts_with("Aggregate  (cost="), "{}", r.text);
        assert!(
            r.text.ends_with('\n') && !r.text.ends_with("\n\n"),
            "{:?}",
            r.text
        );
        assert!(r.text.lines().count() >= 2);
    }

    // `for`: the plan of another representation's statement. The verbose
    // output of the top node is the representation's aggregate.
    let top_output = |r: &Res| plan_json(r)[0]["Plan"]["Output"].to_string();
    let r = get(
        &app,
        "/fmt_items",
        "application/vnd.pgrst.plan+json; for=\"text/csv\"; options=verbose",
    )
    .await;
    assert_eq!(
        r.header("content-type"),
        Some("application/vnd.pgrst.plan+json; for=\"text/csv\"; options=verbose; charset=utf-8")
    );
    assert!(top_output(&r).contains("string_agg"), "{}", r.text);
    let r = get(
        &app,
        "/fmt_items?id=eq.1",
        "application/vnd.pgrst.plan+json; for=\"application/vnd.pgrst.object\"; options=verbose",
    )
    .await;
    assert_eq!(
        r.header("content-type"),
        Some(
            "application/vnd.pgrst.plan+json; for=\"application/vnd.pgrst.object+json\"; options=verbose; charset=utf-8"
        )
    );
    assert!(top_output(&r).contains("-> 0"), "{}", r.text);
    let r = get(
        &app,
        "/fmt_items",
        "application/vnd.pgrst.plan+text; for=\"application/json\"; options=verbose",
    )
    .await;
    assert!(r.text.contains("Output: "), "{}", r.text);

    // A plan for a type without a representation is no plan at all.
    let r = get(
        &app,
        "/fmt_items",
        "application/vnd.pgrst.plan+json; for=\"text/xml\"",
    )
    .await;
    assert_eq!(
        error(&r),
        (
            406,
            JSON,
            json!({"code": "PGRST107", "message": "None of these media types are available: application/vnd.pgrst.plan+json; for=\"text/xml\"", "details": null, "hint": null})
        )
    );
}

// Writes: the plan of the write, 200. As the docs say, "akin to the EXPLAIN
// command, the changes will be committed when using the analyze option"
// unless `Prefer: tx=rollback` (allowed by this test configuration); no
// analyze, nothing runs.
#[tokio::test]
async fn write_plans_commit_only_when_analysed() {
    let app = spawn().await;
    let plan_of =
        |options: &'static str| -> String { format!("application/vnd.pgrst.plan+json{options}") };
    let accept = plan_of("");
    let r = app
        .req(
            "POST",
            "/fmt_notes",
            None,
            &[("accept", &accept)],
            Some(json!({"id": 1, "body": "planned"})),
        )
        .await;
    assert_eq!(
        (r.status, r.header("content-type")),
        (
            200,
            Some("application/vnd.pgrst.plan+json; for=\"application/json\"; charset=utf-8")
        )
    );
    assert!(r.text.contains("\"Operation\": \"Insert\""), "{}", r.text);
    assert_eq!(app.get("/fmt_notes?id=eq.1").await.text, "[]");

    let accept = plan_of("; options=analyze");
    let r = app
        .req(
            "POST",
            "/fmt_notes",
            None,
            &[("accept", &accept), ("prefer", "tx=rollback")],
            Some(json!({"id": 2, "body": "rolled back"})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(app.get("/fmt_notes?id=eq.2").await.text, "[]");

    let r = app
        .req(
            "POST",
            "/fmt_notes",
            None,
            &[("accept", &accept)],
            Some(json!({"id": 3, "body": "analysed"})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(plan_json(&r)[0]["Plan"]["Actual Total Time"].is_number());
    assert_eq!(
        app.get("/fmt_notes?id=eq.3").await.json(),
        json!([{"id": 3, "body": "analysed", "n": null}])
    );

    // PATCH and DELETE too.
    let r = app
        .req(
            "PATCH",
            "/fmt_items?id=eq.1",
            None,
            &[("accept", "application/vnd.pgrst.plan")],
            Some(json!({"name": "x"})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(r.text.contains("Update on"), "{}", r.text);
    let r = app
        .req(
            "DELETE",
            "/fmt_items?id=eq.1",
            None,
            &[("accept", "application/vnd.pgrst.plan")],
            None,
        )
        .await;
    assert!(r.text.contains("Delete on"), "{}", r.text);
    assert_eq!(
        app.get("/fmt_items?select=name&id=eq.1").await.json(),
        json!([{"name": "plain"}])
    );
}

// `db-plan-enabled` off (the default): the plan types have no handler, so
// negotiation goes on to the next type of `Accept`, else 406 naming the
// types as PostgREST decodes them (Plan.hs `mtPlanToNothing`; PlanSpec.hs
// `disabledSpec`).
#[tokio::test]
async fn plans_are_406_when_disabled() {
    let app = crate::spawn_with(RestConfig {
        plan_enabled: false,
        ..crate::support::default_config()
    })
    .await;
    let r = get(&app, "/fmt_items?id=eq.1", "application/vnd.pgrst.plan").await;
    assert_eq!(
        error(&r),
        (
            406,
            JSON,
            json!({"code": "PGRST107", "message": "None of these media types are available: application/vnd.pgrst.plan+text; for=\"application/json\"", "details": null, "hint": null})
        )
    );
    let r = get(
        &app,
        "/fmt_items?id=eq.1",
        "application/vnd.pgrst.plan+json; options=analyze|verbose",
    )
    .await;
    assert_eq!(
        r.json()["message"],
        "None of these media types are available: application/vnd.pgrst.plan+json; for=\"application/json\"; options=analyze|verbose"
    );
    let r = app
        .req(
            "DELETE",
            "/fmt_items?id=eq.1",
            None,
            &[("accept", "application/vnd.pgrst.plan")],
            None,
        )
        .await;
    assert_eq!((r.status, r.code()), (406, "PGRST107".to_owned()));
    assert_eq!(
        app.get("/fmt_items?select=id&id=eq.1").await.text,
        "[{\"id\":1}]"
    );

    let r = get(
        &app,
        "/fmt_items?select=id&id=eq.1",
        "application/vnd.pgrst.plan, text/csv",
    )
    .await;
    assert_eq!(
        (r.status, r.header("content-type"), r.text.as_str()),
        (200, CSV, "id\n1")
    );
}

/// Every `"Alias"` of a JSON plan, with the relation it scans.
fn plan_aliases(plan: &Value, out: &mut Vec<(String, String)>) {
    match plan {
        Value::Object(o) => {
            if let (Some(Value::String(rel)), Some(Value::String(alias))) =
                (o.get("Relation Name"), o.get("Alias"))
            {
                out.push((rel.clone(), alias.clone()));
            }
            o.values().for_each(|v| plan_aliases(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| plan_aliases(v, out)),
        _ => {}
    }
}

// Plans name the relations as PostgREST's statements do (Plan.hs `addRels`,
// QueryBuilder.hs `fromF`): the table read or written is not aliased, an
// embedded table is `<table>_<depth>`, the tables of a many-to-many embed
// are not aliased either; so the scans read `Seq Scan on emb_messages
// emb_messages_1`, never a name of the gateway's own.
#[tokio::test]
async fn plans_name_relations_as_postgrest() {
    let app = spawn().await;
    let aliases = |r: &Res| {
        let mut out = Vec::new();
        plan_aliases(&plan_json(r), &mut out);
        out.sort();
        out.dedup();
        out
    };
    let pair = |r: &str, a: &str| (r.to_owned(), a.to_owned());
    let r = get(
        &app,
        "/emb_users?select=id,emb_messages(id,emb_users(name))&emb_messages.order=id",
        "application/vnd.pgrst.plan+json",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        aliases(&r),
        vec![
            pair("emb_messages", "emb_messages_1"),
            pair("emb_users", "emb_users"),
            pair("emb_users", "emb_users_2"),
        ],
        "{}",
        r.text
    );
    // Text plans: the same names.
    let r = get(
        &app,
        "/emb_users?select=id,emb_messages(id)",
        "application/vnd.pgrst.plan",
    )
    .await;
    assert!(
        r.text.contains(" on emb_messages emb_messages_1 "),
        "{}",
        r.text
    );
    assert!(r.text.contains(" on emb_users  ("), "{}", r.text);
    assert!(!r.text.contains("pgrst_"), "{}", r.text);

    // Writes: the table written is not aliased; the returned rows are
    // named after it.
    let r = app
        .req(
            "PATCH",
            "/fmt_items?id=eq.1",
            None,
            &[("accept", "application/vnd.pgrst.plan+json; options=verbose")],
            Some(json!({"name": "renamed"})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        aliases(&r),
        vec![pair("fmt_items", "fmt_items")],
        "{}",
        r.text
    );
    assert!(!r.text.contains("pgrst_1"), "{}", r.text);
}
