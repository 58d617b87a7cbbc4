//! Snapshot tests of the SQL builder: request text -> plan -> statement.
//! The snapshots show that request values only ever appear as `$n`.

use expect_test::{Expect, expect};

use crate::RestConfig;
use crate::plan::plan;
use crate::request::{RawRequest, parse};
use crate::schema_cache::{
    Column, ForeignKey, Function, Param, QualifiedName, Returns, SchemaCache, Table, TableKind,
    TypeRef, Volatility,
};

fn col(name: &str, ty: &str) -> Column {
    Column {
        name: name.into(),
        ty: TypeRef::builtin(ty),
        pretty_type: ty.into(),
        nullable: true,
        default: None,
        generated: false,
        description: None,
    }
}

fn table(name: &str, columns: Vec<Column>, pk: &[&str]) -> Table {
    Table {
        name: QualifiedName::new("public", name),
        kind: TableKind::Table,
        columns,
        primary_key: pk.iter().map(|s| s.to_string()).collect(),
        description: None,
    }
}

fn fk(name: &str, from: &str, cols: &[&str], to: &str, ref_cols: &[&str]) -> ForeignKey {
    ForeignKey {
        name: name.into(),
        table: QualifiedName::new("public", from),
        columns: cols.iter().map(|s| s.to_string()).collect(),
        ref_table: QualifiedName::new("public", to),
        ref_columns: ref_cols.iter().map(|s| s.to_string()).collect(),
        one_to_one: false,
    }
}

fn cache() -> SchemaCache {
    let mut with_default = col("priority", "int4");
    with_default.default = Some("3".into());
    let tables = vec![
        table(
            "users",
            vec![col("id", "uuid"), col("name", "text")],
            &["id"],
        ),
        table(
            "posts",
            vec![
                col("id", "int4"),
                col("author_id", "uuid"),
                col("title", "text"),
                col("meta", "jsonb"),
                col("tags", "_text"),
                with_default,
            ],
            &["id"],
        ),
        table(
            "labels",
            vec![col("id", "int4"), col("name", "text")],
            &["id"],
        ),
        table(
            "post_labels",
            vec![col("post_id", "int4"), col("label_id", "int4")],
            &["post_id", "label_id"],
        ),
    ];
    let mut functions = std::collections::HashMap::new();
    functions.insert(
        QualifiedName::new("public", "add"),
        vec![Function {
            name: QualifiedName::new("public", "add"),
            params: vec![
                Param {
                    name: "a".into(),
                    ty: TypeRef::builtin("int4"),
                    type_text: "integer".into(),
                    has_default: false,
                    variadic: false,
                },
                Param {
                    name: "b".into(),
                    ty: TypeRef::builtin("int4"),
                    type_text: "integer".into(),
                    has_default: true,
                    variadic: false,
                },
            ],
            returns: Returns::Scalar(TypeRef::builtin("int4")),
            returns_set: false,
            single_row: false,
            volatility: Volatility::Immutable,
            description: None,
            row_arg_of: None,
            media_handler: None,
        }],
    );
    SchemaCache {
        geojson: false,
        schemas: vec!["public".into()],
        tables: tables.into_iter().map(|t| (t.name.clone(), t)).collect(),
        foreign_keys: vec![
            fk(
                "posts_author_id_fkey",
                "posts",
                &["author_id"],
                "users",
                &["id"],
            ),
            fk(
                "post_labels_post_id_fkey",
                "post_labels",
                &["post_id"],
                "posts",
                &["id"],
            ),
            fk(
                "post_labels_label_id_fkey",
                "post_labels",
                &["label_id"],
                "labels",
                &["id"],
            ),
        ],
        functions,
        timezones: Default::default(),
    }
}

fn check(method: &str, path: &str, query: &str, prefer: &[&str], body: &str, expected: Expect) {
    let raw = RawRequest {
        method,
        path,
        query: Some(query),
        prefer,
        body: body.as_bytes(),
        ..Default::default()
    };
    let config = RestConfig {
        aggregates_enabled: true,
        ..RestConfig::default()
    };
    let out = match parse(&raw).and_then(|r| plan(&r, &cache(), &config)) {
        Ok(p) => match super::render(&p, None) {
            Some(stmt) => stmt.sql.debug(),
            None => "no statement".into(),
        },
        Err(e) => format!("ERR {} {}", e.code, e.message),
    };
    expected.assert_eq(&out);
}

#[test]
fn reads() {
    check(
        "GET",
        "/posts",
        "select=id,t:title::text,meta->>lang&id=eq.1&order=title.desc.nullslast&limit=10&offset=5",
        &[],
        "",
        expect![[r#"
            SELECT NULL::bigint AS "total", pg_catalog.count("pgrst_t") AS "page_total", coalesce(json_agg("pgrst_t"), '[]')::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "public"."posts"."id" AS "id", "public"."posts"."title"::text AS "t", "public"."posts"."meta"->>E'lang' AS "lang" FROM "public"."posts" WHERE "public"."posts"."id" = $1::"pg_catalog"."int4" ORDER BY "public"."posts"."title" DESC NULLS LAST LIMIT $2 OFFSET $3) AS "pgrst_t"
            $1 = Text("1")
            $2 = Int(10)
            $3 = Int(5)"#]],
    );
    check(
        "GET",
        "/posts",
        "select=*&or=(id.in.(1,2),and(title.like.*x*,tags.cs.{a}))&meta->a=is.null",
        &["count=exact"],
        "",
        expect![[r#"
            SELECT (SELECT pg_catalog.count(*) FROM (SELECT 1 FROM "public"."posts" WHERE "public"."posts"."meta"->E'a' IS NULL AND ("public"."posts"."id" = ANY($1::"pg_catalog"."int4"[]) OR ("public"."posts"."title" LIKE $2 AND "public"."posts"."tags" @> $3::"pg_catalog"."_text"))) AS "pgrst_c") AS "total", pg_catalog.count("pgrst_t") AS "page_total", coalesce(json_agg("pgrst_t"), '[]')::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "public"."posts".* FROM "public"."posts" WHERE "public"."posts"."meta"->E'a' IS NULL AND ("public"."posts"."id" = ANY($4::"pg_catalog"."int4"[]) OR ("public"."posts"."title" LIKE $5 AND "public"."posts"."tags" @> $6::"pg_catalog"."_text"))) AS "pgrst_t"
            $1 = TextArray(["1", "2"])
            $2 = Text("%x%")
            $3 = Text("{a}")
            $4 = TextArray(["1", "2"])
            $5 = Text("%x%")
            $6 = Text("{a}")"#]],
    );
    check(
        "GET",
        "/posts",
        "select=title,author:users(name),labels!inner(name)&labels.name=eq.x&labels.limit=2",
        &[],
        "",
        expect![[r#"
            SELECT NULL::bigint AS "total", pg_catalog.count("pgrst_t") AS "page_total", coalesce(json_agg("pgrst_t"), '[]')::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "public"."posts"."title" AS "title", "posts_author_1"."body" AS "author", "posts_labels_1"."body" AS "labels" FROM "public"."posts" LEFT JOIN LATERAL (SELECT row_to_json("posts_author_1")::jsonb AS "body" FROM (SELECT "users_1"."name" AS "name" FROM "public"."users" AS "users_1" WHERE "users_1"."id" = "public"."posts"."author_id") AS "posts_author_1") AS "posts_author_1" ON TRUE INNER JOIN LATERAL (SELECT coalesce(json_agg("posts_labels_1")::jsonb, '[]') AS "body" FROM (SELECT "public"."labels"."name" AS "name" FROM "public"."labels" INNER JOIN "public"."post_labels" ON "public"."post_labels"."label_id" = "public"."labels"."id" WHERE "public"."post_labels"."post_id" = "public"."posts"."id" AND "public"."labels"."name" = $1::"pg_catalog"."text" LIMIT $2) AS "posts_labels_1" HAVING pg_catalog.count(*) > 0) AS "posts_labels_1" ON TRUE) AS "pgrst_t"
            $1 = Text("x")
            $2 = Int(2)"#]],
    );
    check(
        "GET",
        "/users",
        "select=name,posts(title)&posts.order=id&name=not.ilike(any).{a*,b*}",
        &[],
        "",
        expect![[r#"
            SELECT NULL::bigint AS "total", pg_catalog.count("pgrst_t") AS "page_total", coalesce(json_agg("pgrst_t"), '[]')::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "public"."users"."name" AS "name", "users_posts_1"."body" AS "posts" FROM "public"."users" LEFT JOIN LATERAL (SELECT coalesce(json_agg("users_posts_1")::jsonb, '[]') AS "body" FROM (SELECT "posts_1"."title" AS "title" FROM "public"."posts" AS "posts_1" WHERE "posts_1"."author_id" = "public"."users"."id" ORDER BY "posts_1"."id" ASC) AS "users_posts_1") AS "users_posts_1" ON TRUE WHERE NOT ("public"."users"."name" ILIKE ANY($1))) AS "pgrst_t"
            $1 = TextArray(["a%", "b%"])"#]],
    );
    check(
        "GET",
        "/posts",
        "select=author_id,count(),n:id.max()",
        &[],
        "",
        expect![[
            r#"SELECT NULL::bigint AS "total", pg_catalog.count("pgrst_t") AS "page_total", coalesce(json_agg("pgrst_t"), '[]')::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "public"."posts"."author_id" AS "author_id", pg_catalog.count(*) AS "count", pg_catalog.max("public"."posts"."id") AS "n" FROM "public"."posts" GROUP BY "public"."posts"."author_id") AS "pgrst_t""#
        ]],
    );
    check(
        "GET",
        "/posts",
        "title=fts(english).a%26b",
        &[],
        "",
        expect![[r#"
            SELECT NULL::bigint AS "total", pg_catalog.count("pgrst_t") AS "page_total", coalesce(json_agg("pgrst_t"), '[]')::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "public"."posts".* FROM "public"."posts" WHERE to_tsvector($1::pg_catalog.regconfig, "public"."posts"."title") @@ to_tsquery($2::pg_catalog.regconfig, $3)) AS "pgrst_t"
            $1 = Text("english")
            $2 = Text("english")
            $3 = Text("a&b")"#]],
    );
    check(
        "GET",
        "/posts",
        "title=eq.x' or '1'='1&select=meta->>\"a'b\"",
        &[],
        "",
        expect![[r#"
            SELECT NULL::bigint AS "total", pg_catalog.count("pgrst_t") AS "page_total", coalesce(json_agg("pgrst_t"), '[]')::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "public"."posts"."meta"->>E'a''b' AS "a'b" FROM "public"."posts" WHERE "public"."posts"."title" = $1::"pg_catalog"."text") AS "pgrst_t"
            $1 = Text("x' or '1'='1")"#]],
    );
}

#[test]
fn writes_and_calls() {
    check(
        "POST",
        "/posts",
        "columns=title,priority&select=id",
        &["return=representation", "missing=default"],
        r#"[{"title":"a"}]"#,
        expect![[r#"
            WITH "pgrst_source" AS (INSERT INTO "public"."posts" ("title", "priority") SELECT "pgrst_body"."title", "pgrst_body"."priority" FROM (SELECT jsonb_build_object(E'priority', (3)) || "pgrst_e" AS "pgrst_j" FROM jsonb_array_elements($1::jsonb) AS "pgrst_elems"("pgrst_e")) AS "pgrst_defs" CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."posts", "pgrst_defs"."pgrst_j") AS "pgrst_body" RETURNING "public"."posts".*) SELECT NULL::bigint AS "total", pg_catalog.count("pgrst_t") AS "page_total", coalesce(json_agg("pgrst_t"), '[]')::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "posts"."id" AS "id" FROM "pgrst_source" AS "posts") AS "pgrst_t"
            $1 = Text("[{\"title\":\"a\"}]")"#]],
    );
    check(
        "POST",
        "/posts",
        "on_conflict=id",
        &["resolution=merge-duplicates"],
        r#"{"id":1,"title":"a"}"#,
        expect![[r#"
            WITH "pgrst_source" AS (INSERT INTO "public"."posts" ("id", "title") SELECT "pgrst_body"."id", "pgrst_body"."title" FROM json_populate_recordset(NULL::"public"."posts", $1::json) AS "pgrst_body" ON CONFLICT ("id") DO UPDATE SET "id" = EXCLUDED."id", "title" = EXCLUDED."title" WHERE set_config('plinth.merged', (coalesce(nullif(current_setting('plinth.merged', true), '')::bigint, 0) + 1)::text, true) IS NOT NULL RETURNING "public"."posts".*) SELECT NULL::bigint AS "total", pg_catalog.count(*) AS "page_total", NULL::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status", (SELECT pg_catalog.count(*) FROM "pgrst_source") - coalesce(nullif(current_setting('plinth.merged', true), '')::bigint, 0) AS "inserted" FROM "pgrst_source"
            $1 = Text("[{\"id\":1,\"title\":\"a\"}]")"#]],
    );
    check(
        "PATCH",
        "/posts",
        "id=eq.1",
        &[],
        r#"{"title":"b"}"#,
        expect![[r#"
            UPDATE "public"."posts" SET "title" = "pgrst_body"."title" FROM (SELECT * FROM json_populate_record(NULL::"public"."posts", $1::json)) AS "pgrst_body" WHERE "public"."posts"."id" = $2::"pg_catalog"."int4"
            $1 = Text("{\"title\":\"b\"}")
            $2 = Text("1")"#]],
    );
    check(
        "PATCH",
        "/posts",
        "id=eq.1&columns=title,priority",
        &["missing=default"],
        r#"{"title":"b"}"#,
        expect![[r#"
            UPDATE "public"."posts" SET "title" = "pgrst_body"."title", "priority" = "pgrst_body"."priority" FROM jsonb_populate_record(NULL::"public"."posts", (SELECT jsonb_build_object(E'priority', (3)) || $1::jsonb)) AS "pgrst_body" WHERE "public"."posts"."id" = $2::"pg_catalog"."int4"
            $1 = Text("{\"title\":\"b\"}")
            $2 = Text("1")"#]],
    );
    check(
        "DELETE",
        "/posts",
        "id=lt.3&select=id",
        &["return=representation"],
        "",
        expect![[r#"
            WITH "pgrst_source" AS (DELETE FROM "public"."posts" WHERE "public"."posts"."id" < $1::"pg_catalog"."int4" RETURNING "public"."posts".*) SELECT NULL::bigint AS "total", pg_catalog.count("pgrst_t") AS "page_total", coalesce(json_agg("pgrst_t"), '[]')::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "posts"."id" AS "id" FROM "pgrst_source" AS "posts") AS "pgrst_t"
            $1 = Text("3")"#]],
    );
    check(
        "POST",
        "/rpc/add",
        "",
        &[],
        r#"{"a":1}"#,
        expect![[r#"
            SELECT NULL::bigint AS "total", pg_catalog.count(*) AS "page_total", (json_agg("pgrst_t"."pgrst_scalar")->0)::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "public"."add"("a" := "pgrst_args"."a") AS "pgrst_scalar" FROM json_to_record($1::json) AS "pgrst_args"("a" "pg_catalog"."int4")) AS "pgrst_t"
            $1 = Text("{\"a\":1}")"#]],
    );
    check(
        "GET",
        "/rpc/add",
        "a=1&b=2",
        &[],
        "",
        expect![[r#"
            SELECT NULL::bigint AS "total", pg_catalog.count(*) AS "page_total", (json_agg("pgrst_t"."pgrst_scalar")->0)::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "public"."add"("a" := $1::"pg_catalog"."int4", "b" := $2::"pg_catalog"."int4") AS "pgrst_scalar") AS "pgrst_t"
            $1 = Text("1")
            $2 = Text("2")"#]],
    );
    check(
        "POST",
        "/posts",
        "",
        &[],
        r#"{"nope":1}"#,
        expect!["ERR PGRST204 Could not find the 'nope' column of 'posts' in the schema cache"],
    );
}

#[test]
fn related_order_and_limited_mutations() {
    // The embed's column travels beside its body, never inside it.
    check(
        "GET",
        "/posts",
        "select=id,author:users(name)&order=author(id).desc.nullslast,id",
        &[],
        "",
        expect![[
            r#"SELECT NULL::bigint AS "total", pg_catalog.count("pgrst_t") AS "page_total", coalesce(json_agg("pgrst_t"), '[]')::text AS "body", nullif(current_setting('response.headers', true), '') AS "response_headers", nullif(current_setting('response.status', true), '') AS "response_status" FROM (SELECT "public"."posts"."id" AS "id", "posts_author_1"."body" AS "author" FROM "public"."posts" LEFT JOIN LATERAL (SELECT (SELECT row_to_json("pgrst_row") FROM (SELECT "posts_author_1"."name" AS "name") AS "pgrst_row")::jsonb AS "body", "posts_author_1"."pgrst_order_0" AS "pgrst_order_0" FROM (SELECT "users_1"."name" AS "name", "users_1"."id" AS "pgrst_order_0" FROM "public"."users" AS "users_1" WHERE "users_1"."id" = "public"."posts"."author_id") AS "posts_author_1") AS "posts_author_1" ON TRUE ORDER BY "posts_author_1"."pgrst_order_0" DESC NULLS LAST, "public"."posts"."id" ASC) AS "pgrst_t""#
        ]],
    );
    check(
        "PATCH",
        "/posts",
        "title=like.a*&order=id.desc&limit=2&offset=1",
        &[],
        r#"{"title":"x"}"#,
        expect![[r#"
            UPDATE "public"."posts" SET "title" = "pgrst_body"."title" FROM (SELECT * FROM json_populate_record(NULL::"public"."posts", $1::json)) AS "pgrst_body" WHERE ("public"."posts"."id") IN (SELECT "public"."posts"."id" FROM "public"."posts" WHERE "public"."posts"."title" LIKE $2 ORDER BY "public"."posts"."id" DESC LIMIT $3 OFFSET $4)
            $1 = Text("{\"title\":\"x\"}")
            $2 = Text("a%")
            $3 = Int(2)
            $4 = Int(1)"#]],
    );
    check(
        "DELETE",
        "/posts",
        "limit=1",
        &[],
        "",
        expect!["ERR PGRST109 A 'limit' was applied without an explicit 'order'"],
    );
    check(
        "GET",
        "/users",
        "select=name,posts(id)&order=posts(id)",
        &[],
        "",
        expect!["ERR PGRST118 A related order on 'posts' is not possible"],
    );
}
