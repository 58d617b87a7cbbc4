//! rpc: PostgREST v14 cases for functions (schema/0010_rpc.sql): one
//! unnamed parameter called with the raw body, overload resolution,
//! PGRST202/203 wording and hints, counts on calls.
//!
//! Truth: docs.postgrest.org "Functions with a single unnamed parameter",
//! and where silent PostgREST's source (v14): Plan.hs `findProc`,
//! Error.hs `NoRpc`/`AmbiguousRpc`/`noRpcHint`, Statements.hs `mainCall`,
//! Response.hs (CallReadPlan), test/spec/Feature/Query/RpcSpec.hs.

use serde_json::{Value, json};

use crate::spawn;
use crate::support::{App, Res};

/// A request with a raw body and its Content-Type.
async fn raw(
    app: &App,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
    headers: &[(&str, &str)],
) -> Res {
    let mut rb = app
        .http
        .post(format!("{}{}", app.base, path))
        .header("content-type", content_type)
        .body(body);
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

fn error(code: &str, message: &str, details: Value, hint: Value) -> Value {
    json!({"code": code, "message": message, "details": details, "hint": hint})
}

#[tokio::test]
async fn single_unnamed_parameter_takes_the_raw_body() {
    let app = spawn().await;
    // text/plain -> f(text)
    let r = raw(
        &app,
        "/rpc/rpc_echo_text",
        "text/plain",
        b"unnamed text arg".to_vec(),
        &[],
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!("unnamed text arg")),
        "{}",
        r.text
    );
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    // text/xml -> f(xml)
    let r = raw(
        &app,
        "/rpc/rpc_echo_xml",
        "text/xml",
        b"<note><to>Jane</to></note>".to_vec(),
        &[],
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!("<note><to>Jane</to></note>")),
        "{}",
        r.text
    );
    // Invalid XML is Postgres's error (RpcSpec "posting invalid xml").
    let r = raw(&app, "/rpc/rpc_echo_xml", "text/xml", b"<".to_vec(), &[]).await;
    assert_eq!(
        (r.status, r.code()),
        (400, "2200N".to_owned()),
        "{}",
        r.text
    );
    assert_eq!(r.json()["message"], "invalid XML content");
    // application/octet-stream -> f(bytea), every byte kept.
    let bytes: Vec<u8> = vec![0, 1, 2, 0xff, 0xfe, b'\n', 0x80];
    let r = raw(
        &app,
        "/rpc/rpc_bytea_hex",
        "application/octet-stream",
        bytes,
        &[],
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!("000102fffe0a80")),
        "{}",
        r.text
    );
    // application/json -> f(json): the body is the argument, whatever its keys.
    let r = app
        .req(
            "POST",
            "/rpc/rpc_echo_json",
            None,
            &[],
            Some(json!({"A": 1, "B": [2, 3]})),
        )
        .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!({"A": 1, "B": [2, 3]})),
        "{}",
        r.text
    );
    // `{"": value}`: the key "" names the unnamed parameter; the body is passed.
    let r = app
        .req(
            "POST",
            "/rpc/rpc_echo_json",
            None,
            &[],
            Some(json!({"": 5})),
        )
        .await;
    assert_eq!((r.status, r.json()), (200, json!({"": 5})), "{}", r.text);
    // A JSON body that is neither an object nor an array of objects is
    // passed as `[]` (Payload.hs `payloadAttributes`).
    let r = app
        .req(
            "POST",
            "/rpc/rpc_echo_json",
            None,
            &[],
            Some(json!("hello")),
        )
        .await;
    assert_eq!((r.status, r.json()), (200, json!([])), "{}", r.text);
}

#[tokio::test]
async fn overloads_are_resolved_by_the_content_type() {
    let app = spawn().await;
    let r = raw(&app, "/rpc/rpc_poly", "text/plain", b"hi".to_vec(), &[]).await;
    assert_eq!((r.status, r.json()), (200, json!("text:hi")), "{}", r.text);
    let r = raw(
        &app,
        "/rpc/rpc_poly",
        "application/octet-stream",
        vec![1, 2, 3],
        &[],
    )
    .await;
    assert_eq!((r.status, r.json()), (200, json!("bytea:3")), "{}", r.text);
    // Named parameters first, the unnamed json overload as the fallback.
    let r = app
        .req(
            "POST",
            "/rpc/rpc_poly",
            None,
            &[],
            Some(json!({"x": 1, "y": 2})),
        )
        .await;
    assert_eq!((r.status, r.json()), (200, json!(3)), "{}", r.text);
    let r = app
        .req("POST", "/rpc/rpc_poly", None, &[], Some(json!({})))
        .await;
    assert_eq!((r.status, r.json()), (200, json!("none")), "{}", r.text);
    let r = app
        .req("POST", "/rpc/rpc_poly", None, &[], Some(json!({"z": 1})))
        .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!("json:{\"z\":1}")),
        "{}",
        r.text
    );
    // GET never falls back to a single unnamed parameter (RpcSpec).
    let r = app.get("/rpc/rpc_poly").await;
    assert_eq!((r.status, r.json()), (200, json!("none")), "{}", r.text);
}

#[tokio::test]
async fn no_function_for_a_raw_body_has_no_hint() {
    let app = spawn().await;
    for (ct, ty) in [
        ("text/plain", "text"),
        ("text/xml", "xml"),
        ("application/octet-stream", "bytea"),
    ] {
        let r = raw(&app, "/rpc/rpc_unnamed_int", ct, b"1".to_vec(), &[]).await;
        assert_eq!(r.status, 404, "{ct}: {}", r.text);
        assert_eq!(
            r.header("content-type"),
            Some("application/json; charset=utf-8")
        );
        assert_eq!(
            r.json(),
            error(
                "PGRST202",
                "Could not find the function public.rpc_unnamed_int in the schema cache",
                json!(format!(
                    "Searched for the function public.rpc_unnamed_int with a single unnamed {ty} parameter, but no matches were found in the schema cache."
                )),
                Value::Null,
            ),
            "{ct}"
        );
    }
    // A named json parameter takes no raw body.
    let r = app
        .req(
            "POST",
            "/rpc/rpc_named_json",
            None,
            &[],
            Some(json!({"A": 1, "B": 2})),
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
    assert_eq!(
        r.json(),
        error(
            "PGRST202",
            "Could not find the function public.rpc_named_json(A, B) in the schema cache",
            json!(
                "Searched for the function public.rpc_named_json with parameters A, B or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache."
            ),
            // As PostgREST's own RpcSpec: no close parameter list.
            Value::Null,
        )
    );
}

#[tokio::test]
async fn ambiguous_overloads_are_300_with_postgres_type_names() {
    let app = spawn().await;
    // Overloads differing only in defaulted parameters.
    let r = app.get("/rpc/rpc_dflt?a=1").await;
    assert_eq!(r.status, 300, "{}", r.text);
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    assert_eq!(
        r.json(),
        error(
            "PGRST203",
            "Could not choose the best candidate function between: public.rpc_dflt(a => integer, b => integer), public.rpc_dflt(a => integer, c => text)",
            Value::Null,
            json!(
                "Try renaming the parameters or the function itself in the database so function overloading can be resolved"
            ),
        )
    );
    // Naming a defaulted parameter picks one; all three the third.
    let r = app.get("/rpc/rpc_dflt?a=1&b=2").await;
    assert_eq!((r.status, r.json()), (200, json!(3)), "{}", r.text);
    let r = app.get("/rpc/rpc_dflt?a=1&c=z").await;
    assert_eq!((r.status, r.json()), (200, json!("1z")), "{}", r.text);
    let r = app
        .req(
            "POST",
            "/rpc/rpc_dflt",
            None,
            &[],
            Some(json!({"a": 1, "b": 2, "c": "!"})),
        )
        .await;
    assert_eq!((r.status, r.json()), (200, json!("3!")), "{}", r.text);
    // Two fallbacks (json and jsonb): ambiguous, the unnamed parameter shown
    // with an empty name (RpcSpec).
    let r = app
        .req(
            "POST",
            "/rpc/rpc_json_jsonb",
            None,
            &[],
            Some(json!({"A": 1})),
        )
        .await;
    assert_eq!(r.status, 300, "{}", r.text);
    assert_eq!(
        r.json()["message"],
        "Could not choose the best candidate function between: public.rpc_json_jsonb( => json), public.rpc_json_jsonb( => jsonb)"
    );
}

#[tokio::test]
async fn no_function_wording_and_fuzzy_hints() {
    let app = spawn().await;
    // One parameter: singular; the closest overload's parameters as hint.
    let r = app.get("/rpc/rpc_add?a=1").await;
    assert_eq!(r.status, 404, "{}", r.text);
    assert_eq!(
        r.json(),
        error(
            "PGRST202",
            "Could not find the function public.rpc_add(a) in the schema cache",
            json!(
                "Searched for the function public.rpc_add with parameter a, but no matches were found in the schema cache."
            ),
            json!("Perhaps you meant to call the function public.rpc_add(a, b)"),
        )
    );
    // No parameters; nothing close among the parameter lists.
    let r = app.get("/rpc/rpc_add").await;
    assert_eq!(
        r.json(),
        error(
            "PGRST202",
            "Could not find the function public.rpc_add without parameters in the schema cache",
            json!(
                "Searched for the function public.rpc_add without parameters, but no matches were found in the schema cache."
            ),
            Value::Null,
        )
    );
    // Several parameters, sorted; POST mentions the json/jsonb fallback.
    let r = app
        .req(
            "POST",
            "/rpc/rpc_add",
            None,
            &[],
            Some(json!({"b": 1, "a": 2, "c": 3})),
        )
        .await;
    assert_eq!(
        r.json(),
        error(
            "PGRST202",
            "Could not find the function public.rpc_add(a, b, c) in the schema cache",
            json!(
                "Searched for the function public.rpc_add with parameters a, b, c or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache."
            ),
            json!("Perhaps you meant to call the function public.rpc_add(a, b)"),
        )
    );
    // An unknown name: the closest function name of the schema when it is close.
    let r = app.get("/rpc/rpc_get_item?lim=2").await;
    assert_eq!(r.status, 404, "{}", r.text);
    assert_eq!(
        r.json()["hint"],
        "Perhaps you meant to call the function public.rpc_get_items"
    );
    let r = app.get("/rpc/completely_unrelated_name").await;
    assert_eq!(
        r.json(),
        error(
            "PGRST202",
            "Could not find the function public.completely_unrelated_name without parameters in the schema cache",
            json!(
                "Searched for the function public.completely_unrelated_name without parameters, but no matches were found in the schema cache."
            ),
            Value::Null,
        )
    );
    // A function PostgREST cannot call (unnamed int) is not in its cache.
    let r = app
        .req(
            "POST",
            "/rpc/rpc_unnamed_int",
            None,
            &[],
            Some(json!({"x": 1})),
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
    assert_eq!(
        r.json()["message"],
        "Could not find the function public.rpc_unnamed_int(x) in the schema cache"
    );
}

#[tokio::test]
async fn counts_on_function_calls() {
    let app = spawn().await;
    let exact = [("prefer", "count=exact")];
    // GET, a set of rows: like a table read.
    let r = app
        .req("GET", "/rpc/rpc_items_upto?n=3", None, &exact, None)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.header("content-range"), Some("0-2/3"));
    assert_eq!(r.header("preference-applied"), Some("count=exact"));
    assert_eq!(r.json().as_array().map(Vec::len), Some(3));
    // A page of it: 206 with the total.
    let r = app
        .req(
            "GET",
            "/rpc/rpc_items_upto?n=3&limit=1&offset=1",
            None,
            &exact,
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.header("content-range")),
        (206, Some("1-1/3")),
        "{}",
        r.text
    );
    assert_eq!(r.json(), json!([{"id": 2, "name": "two"}]));
    // HEAD: headers only.
    let r = app
        .req("HEAD", "/rpc/rpc_items_upto?n=4", None, &exact, None)
        .await;
    assert_eq!(
        (r.status, r.header("content-range"), r.text.as_str()),
        (200, Some("0-3/4"), "")
    );
    // POST.
    let r = app
        .req(
            "POST",
            "/rpc/rpc_items_upto?limit=2",
            None,
            &exact,
            Some(json!({"n": 3})),
        )
        .await;
    assert_eq!(
        (r.status, r.header("content-range")),
        (206, Some("0-1/3")),
        "{}",
        r.text
    );
    // Planned: the planner's estimate (of a table without statistics, more
    // than 3), so the page looks partial, as in PostgREST (RangeQuery.hs
    // `rangeStatus`).
    let r = app
        .req(
            "GET",
            "/rpc/rpc_items_upto?n=3",
            None,
            &[("prefer", "count=planned")],
            None,
        )
        .await;
    assert_eq!(r.header("preference-applied"), Some("count=planned"));
    let range = r.header("content-range").unwrap_or_default().to_owned();
    let planned: i64 = range
        .strip_prefix("0-2/")
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    assert_eq!((r.status, planned > 3), (206, true), "{range} {}", r.text);
    // Estimated: exact below db-max-rows (none is set here).
    let r = app
        .req(
            "GET",
            "/rpc/rpc_items_upto?n=3",
            None,
            &[("prefer", "count=estimated")],
            None,
        )
        .await;
    assert_eq!(r.header("preference-applied"), Some("count=estimated"));
    assert_eq!(
        (r.status, r.header("content-range")),
        (200, Some("0-2/3")),
        "{}",
        r.text
    );
    // Without a count: `*`.
    let r = app.get("/rpc/rpc_items_upto?n=2").await;
    assert_eq!(r.header("content-range"), Some("0-1/*"));
    // One value, one row, void: a range of one (RpcSpec "includes exact count
    // of 1 for functions that return a single scalar, domain or composite").
    let r = app
        .req("GET", "/rpc/rpc_add?a=3&b=4", None, &exact, None)
        .await;
    assert_eq!(
        (r.status, r.header("content-range"), r.json()),
        (200, Some("0-0/1"), json!(7))
    );
    let r = app
        .req("GET", "/rpc/rpc_item?i=2", None, &exact, None)
        .await;
    assert_eq!(
        (r.status, r.header("content-range")),
        (200, Some("0-0/1")),
        "{}",
        r.text
    );
    assert_eq!(r.json(), json!({"id": 2, "name": "two"}));
    let r = app.get("/rpc/rpc_add?a=3&b=4").await;
    assert_eq!(r.header("content-range"), Some("0-0/*"));
    let r = app
        .req("POST", "/rpc/rpc_nothing", None, &[], Some(json!({})))
        .await;
    assert_eq!(
        (r.status, r.header("content-range"), r.text.as_str()),
        (204, Some("0-0/*"), "")
    );
    // A set of scalars.
    let r = app
        .req("GET", "/rpc/rpc_get_items?lim=5", None, &exact, None)
        .await;
    assert_eq!(
        (r.status, r.header("content-range")),
        (200, Some("0-4/5")),
        "{}",
        r.text
    );
}

/// GET with an `Accept` header, the body as bytes.
async fn get_bytes(app: &App, path: &str, accept: &str) -> (u16, Option<String>, Vec<u8>) {
    let r = app
        .http
        .get(format!("{}{}", app.base, path))
        .header("accept", accept)
        .send()
        .await
        .expect("request");
    let status = r.status().as_u16();
    let ct = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (status, ct, r.bytes().await.expect("body").to_vec())
}

// docs.postgrest.org "Media Type Handlers" (handler functions) and, where
// silent, Plan.hs `negotiateContent` (the first type of `Accept` that a
// built-in handler produces or the function's domain names),
// SqlFragment.hs `customFuncF`, MediaType.hs `toContentType` (a charset
// for the types PostgREST knows, none for octet-stream and vendor types).
#[tokio::test]
async fn media_type_handlers_answer_the_raw_value() {
    let app = spawn().await;
    let text = "hello, ann\n\"quoted\"";
    let (status, ct, body) = get_bytes(&app, "/rpc/rpc_greet?name=ann", "text/plain").await;
    assert_eq!(
        (status, ct.as_deref(), body.as_slice()),
        (200, Some("text/plain; charset=utf-8"), text.as_bytes())
    );
    // POST with named arguments, the same.
    let r = app
        .req(
            "POST",
            "/rpc/rpc_greet",
            None,
            &[("accept", "text/plain")],
            Some(json!({"name": "ann"})),
        )
        .await;
    assert_eq!((r.status, r.text.as_str()), (200, text));
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    // Without Accept (or with JSON first) the built-in JSON handler answers.
    let r = app.get("/rpc/rpc_greet?name=ann").await;
    assert_eq!((r.status, r.json()), (200, json!(text)));
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    let (status, ct, _) = get_bytes(
        &app,
        "/rpc/rpc_greet?name=ann",
        "application/json, text/plain",
    )
    .await;
    assert_eq!(
        (status, ct.as_deref()),
        (200, Some("application/json; charset=utf-8"))
    );
    // By quality: text/plain first.
    let (status, ct, body) = get_bytes(
        &app,
        "/rpc/rpc_greet?name=ann",
        "application/json;q=0.5, text/plain",
    )
    .await;
    assert_eq!(
        (status, ct.as_deref(), body.as_slice()),
        (200, Some("text/plain; charset=utf-8"), text.as_bytes())
    );
    // bytea domains: every byte, no charset.
    let (status, ct, body) = get_bytes(&app, "/rpc/rpc_octets", "application/octet-stream").await;
    assert_eq!(
        (status, ct.as_deref(), body),
        (
            200,
            Some("application/octet-stream"),
            vec![0, 0xff, 0x0a, 0x80]
        )
    );
    let (status, ct, body) = get_bytes(&app, "/rpc/rpc_vendor", "application/vnd.rpc.bin").await;
    assert_eq!(
        (status, ct.as_deref(), body),
        (200, Some("application/vnd.rpc.bin"), vec![1, 2])
    );
    // A function without a handler for the type: 406 PGRST107.
    let r = app
        .req(
            "GET",
            "/rpc/rpc_add?a=1&b=2",
            None,
            &[("accept", "text/plain")],
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.json()),
        (
            406,
            error(
                "PGRST107",
                "None of these media types are available: text/plain",
                Value::Null,
                Value::Null
            )
        )
    );
    let r = app
        .req(
            "GET",
            "/rpc/rpc_octets",
            None,
            &[("accept", "text/plain")],
            None,
        )
        .await;
    assert_eq!((r.status, r.code()), (406, "PGRST107".to_owned()));
}

// CSV from functions (SqlFragment.hs `asCsvF` over the call's rows,
// QueryBuilder.hs `callPlanToQuery`): rows print as a table's, with the
// selected columns as the header; a scalar result is one row of the column
// PostgREST names `pgrst_scalar`; a set of scalars one line each.
#[tokio::test]
async fn functions_answer_csv_as_postgrest() {
    let app = spawn().await;
    let csv = |path: &'static str| {
        let app = &app;
        async move {
            let (status, ct, body) = get_bytes(app, path, "text/csv").await;
            (status, ct, String::from_utf8(body).expect("utf-8"))
        }
    };
    let ct = Some("text/csv; charset=utf-8".to_owned());
    assert_eq!(
        csv("/rpc/rpc_items_upto?n=2").await,
        (200, ct.clone(), "id,name\n1,one\n2,two".to_owned())
    );
    assert_eq!(
        csv("/rpc/rpc_items_upto?n=3&select=name&id=gt.1").await,
        (200, ct.clone(), "name\ntwo\nthree".to_owned())
    );
    assert_eq!(
        csv("/rpc/rpc_items_upto?n=0").await,
        (200, ct.clone(), "\n".to_owned())
    );
    assert_eq!(
        csv("/rpc/rpc_item?i=4").await,
        (200, ct.clone(), "id,name\n4,four".to_owned())
    );
    assert_eq!(
        csv("/rpc/rpc_add?a=1&b=2").await,
        (200, ct.clone(), "pgrst_scalar\n3".to_owned())
    );
    assert_eq!(
        csv("/rpc/rpc_get_items?lim=3").await,
        (200, ct, "pgrst_scalar\n1\n2\n3".to_owned())
    );
}
