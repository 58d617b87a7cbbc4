//! embeds: PostgREST v14 cases of resource embedding (schema/0030_embeds.sql):
//! one-to-one keys, disambiguation (two keys to one table, self-reference,
//! views over tables, hints by column and constraint, aliases), aggregates
//! inside embeds and with spreads.
//!
//! Truth: docs.postgrest.org "Resource Embedding" (one-to-one, spread,
//! recursive relationships), "Aggregate Functions"; where silent,
//! PostgREST's source (v14): Plan.hs `findRel` and
//! `hoistSpreadAggFunctions`, SchemaCache.hs `allM2OandO2ORels`,
//! `addViewM2OAndO2ORels` and the view key dependencies query, Error.hs
//! `compressedRel`/`relHint`, SqlFragment.hs `groupF`, and
//! test/spec/Feature/Query/EmbedDisambiguationSpec.hs.

use serde_json::{Value, json};

use crate::support::{self, Res};
use crate::{spawn, spawn_with};

fn ok(r: &Res, expected: Value) {
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    assert_eq!(r.json(), expected, "{}", r.text);
}

fn error(r: &Res, status: u16, expected: Value) {
    assert_eq!(r.status, status, "{}", r.text);
    assert_eq!(r.json(), expected, "{}", r.text);
}

/// Rows of a grouped result whose order SQL does not fix, sorted by `key`.
fn sorted_by(mut rows: Value, key: &str) -> Value {
    if let Some(a) = rows.as_array_mut() {
        a.sort_by(|x, y| {
            let (x, y) = (x[key].as_f64(), y[key].as_f64());
            x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal)
        });
    }
    rows
}

// --- one-to-one ---------------------------------------------------------

#[tokio::test]
async fn one_to_one_embeds_as_an_object_from_both_sides() {
    let app = spawn().await;
    // From the referenced side: a unique foreign key (profiles.user_id) and
    // a foreign key that is the primary key (passports.user_id) are
    // one-to-one, so an object, null when absent (not an array).
    let r = app
        .get("/emb_users?select=name,emb_profiles(bio),emb_passports(number)&order=id")
        .await;
    ok(
        &r,
        json!([
            {"name": "Ann", "emb_profiles": {"bio": "Ann writes"}, "emb_passports": {"number": "P-001"}},
            {"name": "Bob", "emb_profiles": {"bio": "Bob reads"}, "emb_passports": null},
            {"name": "Cid", "emb_profiles": null, "emb_passports": null}
        ]),
    );
    // From the referencing side.
    let r = app
        .get("/emb_profiles?select=bio,emb_users(name)&order=id")
        .await;
    ok(
        &r,
        json!([
            {"bio": "Ann writes", "emb_users": {"name": "Ann"}},
            {"bio": "Bob reads", "emb_users": {"name": "Bob"}}
        ]),
    );
    let r = app
        .get("/emb_passports?select=number,emb_users(name)")
        .await;
    ok(
        &r,
        json!([{"number": "P-001", "emb_users": {"name": "Ann"}}]),
    );
}

#[tokio::test]
async fn one_to_one_inner_null_filter_and_related_order() {
    let app = spawn().await;
    let r = app
        .get("/emb_users?select=name,emb_profiles!inner(bio)&order=id")
        .await;
    ok(
        &r,
        json!([
            {"name": "Ann", "emb_profiles": {"bio": "Ann writes"}},
            {"name": "Bob", "emb_profiles": {"bio": "Bob reads"}}
        ]),
    );
    let r = app
        .get("/emb_users?select=name,emb_passports!inner(number)")
        .await;
    ok(
        &r,
        json!([{"name": "Ann", "emb_passports": {"number": "P-001"}}]),
    );
    let r = app
        .get("/emb_users?select=name,emb_profiles(bio)&emb_profiles=is.null")
        .await;
    ok(&r, json!([{"name": "Cid", "emb_profiles": null}]));
    // A related order needs a to-one embed: one-to-one from the referenced
    // side is one (PostgREST Plan.hs `addRelatedOrders`, `relIsToOne`).
    let r = app
        .get("/emb_users?select=name,emb_profiles(bio)&order=emb_profiles(bio).desc.nullslast")
        .await;
    ok(
        &r,
        json!([
            {"name": "Bob", "emb_profiles": {"bio": "Bob reads"}},
            {"name": "Ann", "emb_profiles": {"bio": "Ann writes"}},
            {"name": "Cid", "emb_profiles": null}
        ]),
    );
}

// --- disambiguation -----------------------------------------------------

#[tokio::test]
async fn two_keys_to_one_table_answer_pgrst201_with_details() {
    let app = spawn().await;
    let r = app.get("/emb_orders?select=id,emb_addresses(city)").await;
    error(
        &r,
        300,
        json!({
            "code": "PGRST201",
            "details": [
                {
                    "cardinality": "many-to-one",
                    "embedding": "emb_orders with emb_addresses",
                    "relationship": "emb_orders_billing_fkey using emb_orders(billing_address_id) and emb_addresses(id)"
                },
                {
                    "cardinality": "many-to-one",
                    "embedding": "emb_orders with emb_addresses",
                    "relationship": "emb_orders_shipping_fkey using emb_orders(shipping_address_id) and emb_addresses(id)"
                }
            ],
            "hint": "Try changing 'emb_addresses' to one of the following: 'emb_addresses!emb_orders_billing_fkey', 'emb_addresses!emb_orders_shipping_fkey'. Find the desired relationship in the 'details' key.",
            "message": "Could not embed because more than one relationship was found for 'emb_orders' and 'emb_addresses'"
        }),
    );
    // The other side: one-to-many, the columns of the parent first.
    let r = app.get("/emb_addresses?select=city,emb_orders(id)").await;
    error(
        &r,
        300,
        json!({
            "code": "PGRST201",
            "details": [
                {
                    "cardinality": "one-to-many",
                    "embedding": "emb_addresses with emb_orders",
                    "relationship": "emb_orders_billing_fkey using emb_addresses(id) and emb_orders(billing_address_id)"
                },
                {
                    "cardinality": "one-to-many",
                    "embedding": "emb_addresses with emb_orders",
                    "relationship": "emb_orders_shipping_fkey using emb_addresses(id) and emb_orders(shipping_address_id)"
                }
            ],
            "hint": "Try changing 'emb_orders' to one of the following: 'emb_orders!emb_orders_billing_fkey', 'emb_orders!emb_orders_shipping_fkey'. Find the desired relationship in the 'details' key.",
            "message": "Could not embed because more than one relationship was found for 'emb_addresses' and 'emb_orders'"
        }),
    );
    // A hint naming the referenced column matches both keys: still 300.
    let r = app
        .get("/emb_orders?select=id,emb_addresses!id(city)")
        .await;
    assert_eq!(r.status, 300, "{}", r.text);
    assert_eq!(r.code(), "PGRST201");
}

#[tokio::test]
async fn hints_by_column_and_constraint_and_the_same_table_twice() {
    let app = spawn().await;
    let r = app
        .get("/emb_orders?select=id,billing:emb_addresses!billing_address_id(city),shipping:emb_addresses!emb_orders_shipping_fkey(city)&order=id")
        .await;
    ok(
        &r,
        json!([
            {"id": 1, "billing": {"city": "Oslo"}, "shipping": {"city": "Rome"}},
            {"id": 2, "billing": {"city": "Oslo"}, "shipping": {"city": "Lima"}},
            {"id": 3, "billing": {"city": "Rome"}, "shipping": {"city": "Rome"}},
            {"id": 4, "billing": {"city": "Lima"}, "shipping": {"city": "Oslo"}}
        ]),
    );
    // The column (or constraint) itself as the target.
    let r = app
        .get(
            "/emb_orders?select=id,billing_address_id(city),emb_orders_shipping_fkey(city)&id=eq.1",
        )
        .await;
    ok(
        &r,
        json!([{"id": 1, "billing_address_id": {"city": "Oslo"}, "emb_orders_shipping_fkey": {"city": "Rome"}}]),
    );
    // From the referenced side, the hint names the referencing column.
    let r = app
        .get("/emb_addresses?select=city,billed:emb_orders!billing_address_id(id)&id=eq.1&billed.order=id")
        .await;
    ok(
        &r,
        json!([{"city": "Oslo", "billed": [{"id": 1}, {"id": 2}]}]),
    );
    // A hint that names nothing: PGRST200 says which hint it tried.
    let r = app
        .get("/emb_orders?select=id,emb_addresses!nope(city)")
        .await;
    error(
        &r,
        400,
        json!({
            "code": "PGRST200",
            "details": "Searched for a foreign key relationship between 'emb_orders' and 'emb_addresses' using the hint 'nope' in the schema 'public', but no matches were found.",
            "hint": null,
            "message": "Could not find a relationship between 'emb_orders' and 'emb_addresses' in the schema cache"
        }),
    );
}

#[tokio::test]
async fn self_reference_follows_postgrest_rules() {
    let app = spawn().await;
    // The table's own name: the one-to-many side (children).
    let r = app
        .get("/emb_items?select=name,emb_items(name)&id=eq.1&emb_items.order=id")
        .await;
    ok(
        &r,
        json!([{"name": "root", "emb_items": [{"name": "a"}, {"name": "b"}]}]),
    );
    // The key column as the target: the many-to-one side (parent).
    let r = app
        .get("/emb_items?select=name,parent:parent_id(name)&id=eq.4")
        .await;
    ok(&r, json!([{"name": "a1", "parent": {"name": "a"}}]));
    let r = app
        .get("/emb_items?select=name,parent_id(name)&id=eq.1")
        .await;
    ok(&r, json!([{"name": "root", "parent_id": null}]));
    // With a hint, a self-reference only matches the one-to-many side, the
    // hint naming the referencing column: `children:emb_items!parent_id`
    // lists children, and so does `parent:emb_items!parent_id` (the alias
    // is only a name). PostgREST Plan.hs `findRel` (relIsSelf);
    // EmbedDisambiguationSpec "one self reference foreign key".
    let r = app
        .get("/emb_items?select=name,children:emb_items!parent_id(name)&id=eq.1&children.order=id")
        .await;
    ok(
        &r,
        json!([{"name": "root", "children": [{"name": "a"}, {"name": "b"}]}]),
    );
    let r = app
        .get("/emb_items?select=name,parent:emb_items!parent_id(name)&id=eq.2")
        .await;
    ok(&r, json!([{"name": "a", "parent": [{"name": "a1"}]}]));
    // Nested: each level by its own rule.
    let r = app
        .get("/emb_items?select=name,parent_id(name,parent_id(name))&id=eq.4")
        .await;
    ok(
        &r,
        json!([{"name": "a1", "parent_id": {"name": "a", "parent_id": {"name": "root"}}}]),
    );
}

#[tokio::test]
async fn views_inherit_the_keys_of_their_tables() {
    let app = spawn().await;
    // View -> table, through a renamed column (buyer_id is user_id).
    let r = app
        .get("/emb_orders_view?select=order_id,emb_users(name)&order=order_id")
        .await;
    ok(
        &r,
        json!([
            {"order_id": 1, "emb_users": {"name": "Ann"}},
            {"order_id": 2, "emb_users": {"name": "Ann"}},
            {"order_id": 3, "emb_users": {"name": "Bob"}},
            {"order_id": 4, "emb_users": null}
        ]),
    );
    // Table -> view.
    let r = app
        .get("/emb_users?select=name,emb_orders_view(order_id)&id=eq.1&emb_orders_view.order=order_id")
        .await;
    ok(
        &r,
        json!([{"name": "Ann", "emb_orders_view": [{"order_id": 1}, {"order_id": 2}]}]),
    );
    // View -> view, and a view of a view (buyer is emb_users_view.id, which
    // is emb_users.id).
    let r = app
        .get("/emb_orders_view?select=order_id,emb_users_view(full_name)&order_id=eq.3")
        .await;
    ok(
        &r,
        json!([{"order_id": 3, "emb_users_view": {"full_name": "Bob"}}]),
    );
    let r = app
        .get("/emb_buyers_view?select=full_name,emb_orders_view(order_id)&buyer=eq.2")
        .await;
    ok(
        &r,
        json!([{"full_name": "Bob", "emb_orders_view": [{"order_id": 3}]}]),
    );
    // One-to-one through a view stays an object.
    let r = app
        .get("/emb_users_view?select=full_name,emb_profiles(bio)&order=id")
        .await;
    ok(
        &r,
        json!([
            {"full_name": "Ann", "emb_profiles": {"bio": "Ann writes"}},
            {"full_name": "Bob", "emb_profiles": {"bio": "Bob reads"}},
            {"full_name": "Cid", "emb_profiles": null}
        ]),
    );
    // A hint by the view's own column name.
    let r = app
        .get("/emb_orders_view?select=order_id,buyer:emb_users!buyer_id(name)&order_id=eq.1")
        .await;
    ok(&r, json!([{"order_id": 1, "buyer": {"name": "Ann"}}]));
    // Without a hint, a constraint name as the target never leads to a
    // view: emb_orders_user_id_fkey is carried by emb_orders_view too, yet
    // only emb_orders matches (PostgREST Plan.hs `findRel`,
    // `not relFTableIsView`), so no PGRST201.
    let r = app
        .get("/emb_users?select=name,emb_orders_user_id_fkey(id)&id=eq.2")
        .await;
    ok(
        &r,
        json!([{"name": "Bob", "emb_orders_user_id_fkey": [{"id": 3}]}]),
    );
}

// --- aggregates ---------------------------------------------------------

#[tokio::test]
async fn legacy_count_inside_an_embed() {
    let app = spawn().await;
    // `count` without parentheses: PostgREST selects "t"."count", which
    // PostgreSQL reads as count("t") over the embedded rows.
    let r = app
        .get("/emb_users?select=id,emb_messages(count)&order=id")
        .await;
    ok(
        &r,
        json!([
            {"id": 1, "emb_messages": [{"count": 2}]},
            {"id": 2, "emb_messages": [{"count": 1}]},
            {"id": 3, "emb_messages": [{"count": 0}]}
        ]),
    );
    // In a to-one spread: the count of the one related row (1 or 0).
    let r = app
        .get("/emb_orders?select=id,...emb_users(count)&order=id")
        .await;
    ok(
        &r,
        json!([
            {"id": 1, "count": 1},
            {"id": 2, "count": 1},
            {"id": 3, "count": 1},
            {"id": 4, "count": 0}
        ]),
    );
}

#[tokio::test]
async fn legacy_count_works_with_aggregates_disabled() {
    let config = plinth_rest::RestConfig {
        aggregates_enabled: false,
        ..support::default_config()
    };
    let app = spawn_with(config).await;
    let r = app
        .get("/emb_users?select=id,emb_messages(count)&id=eq.1")
        .await;
    ok(&r, json!([{"id": 1, "emb_messages": [{"count": 2}]}]));
    // count() is an aggregate function: refused.
    let r = app
        .get("/emb_users?select=id,emb_messages(count())&id=eq.1")
        .await;
    error(
        &r,
        400,
        json!({
            "code": "PGRST123",
            "details": null,
            "hint": null,
            "message": "Use of aggregate functions is not allowed"
        }),
    );
}

#[tokio::test]
async fn aggregates_inside_embeds_with_casts_grouped_by_the_other_columns() {
    let app = spawn().await;
    let r = app
        .get("/emb_users?select=name,emb_orders(amount.sum(),placed_on)&id=eq.1&emb_orders.order=placed_on")
        .await;
    ok(
        &r,
        json!([{"name": "Ann", "emb_orders": [
            {"sum": 10.50, "placed_on": "2024-01-01"},
            {"sum": 20.25, "placed_on": "2024-01-02"}
        ]}]),
    );
    // Casts of the argument and of the result; an embed without rows still
    // aggregates to one row of nulls (no GROUP BY), as in PostgreSQL.
    let r = app
        .get("/emb_users?select=name,emb_orders(total:amount::int.sum(),average:amount.avg()::int,low:amount.min(),high:amount.max(),orders:count())&order=id")
        .await;
    ok(
        &r,
        json!([
            {"name": "Ann", "emb_orders": [{"total": 31, "average": 15, "low": 10.50, "high": 20.25, "orders": 2}]},
            {"name": "Bob", "emb_orders": [{"total": 5, "average": 5, "low": 5.00, "high": 5.00, "orders": 1}]},
            {"name": "Cid", "emb_orders": [{"total": null, "average": null, "low": null, "high": null, "orders": 0}]}
        ]),
    );
    // Grouped by an embedded resource (docs: "Grouping by an Embedded
    // Resource"): one row per distinct embedded object.
    let r = app
        .get("/emb_orders?select=amount.sum(),emb_users(name)")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        sorted_by(r.json(), "sum"),
        json!([
            {"sum": 5.00, "emb_users": {"name": "Bob"}},
            {"sum": 7.25, "emb_users": null},
            {"sum": 30.75, "emb_users": {"name": "Ann"}}
        ])
    );
}

#[tokio::test]
async fn aggregates_in_to_one_spreads_are_hoisted() {
    let app = spawn().await;
    // Docs "Aggregates in To-One Spreads": the aggregate runs in the parent,
    // grouped by the parent's other columns.
    let r = app
        .get("/emb_orders?select=placed_on,...emb_users(buyers:id.count(),first:name.min(),last:name.max())&order=placed_on")
        .await;
    ok(
        &r,
        json!([
            {"placed_on": "2024-01-01", "buyers": 2, "first": "Ann", "last": "Bob"},
            {"placed_on": "2024-01-02", "buyers": 1, "first": "Ann", "last": "Ann"}
        ]),
    );
    // count() in a spread counts the related rows (none for a null key).
    let r = app
        .get("/emb_orders?select=placed_on,...emb_users(count())&order=placed_on")
        .await;
    ok(
        &r,
        json!([
            {"placed_on": "2024-01-01", "count": 2},
            {"placed_on": "2024-01-02", "count": 1}
        ]),
    );
    // The parent's aggregate grouped by a spread's column.
    let r = app
        .get("/emb_orders?select=amount.sum(),...emb_users(name)")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        sorted_by(r.json(), "sum"),
        json!([
            {"sum": 5.00, "name": "Bob"},
            {"sum": 7.25, "name": null},
            {"sum": 30.75, "name": "Ann"}
        ])
    );
    // Aggregates inside a to-many spread are not implemented (PostgREST
    // Plan.hs `addToManyOrderSelects`, Error.hs NotImplemented).
    let r = app
        .get("/emb_users?select=name,...emb_orders(amount.sum())")
        .await;
    error(
        &r,
        400,
        json!({
            "code": "PGRST127",
            "details": "Aggregates are not implemented for one-to-many or many-to-many spreads.",
            "hint": null,
            "message": "Feature not implemented"
        }),
    );
}

// PostgREST builds every embedded resource as jsonb (QueryBuilder.hs
// `getJoinSelects`: `row_to_json(..)::jsonb`, `json_agg(..)::jsonb`;
// SqlFragment.hs `pgFmtSpreadJoinSelectItem`), inside a top-level json
// array: so the rows print as json does (no spaces) and what is embedded
// prints as jsonb does (a space after `:` and `,`, keys shortest first).
#[tokio::test]
async fn embedded_resources_print_as_jsonb_as_in_postgrest() {
    let app = spawn().await;
    let r = app
        .get("/emb_users?select=name,id,emb_profiles(user_id,bio),emb_messages(body,id)&id=eq.1&emb_messages.order=id")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.text,
        r#"[{"name":"Ann","id":1,"emb_profiles":{"bio": "Ann writes", "user_id": 1},"emb_messages":[{"id": 1, "body": "hi"}, {"id": 2, "body": "again"}]}]"#
    );
    // A to-many spread: arrays of the spread columns, jsonb too.
    let r = app
        .get("/emb_users?select=id,...emb_messages(message_ids:id)&id=eq.1&emb_messages.order=id")
        .await;
    assert_eq!(r.text, r#"[{"id":1,"message_ids":[1, 2]}]"#);
}

// --- the names in the database's errors -----------------------------------

// An unknown column is the database's 42703, naming the relation as
// PostgREST's statement names it (Plan.hs `addRels`): the table read by
// its name, an embedded table `<table>_<depth>`, and a related order the
// embed's join `<parent>_<embed>_<depth>` (Plan.hs `addRelatedOrders`).
#[tokio::test]
async fn unknown_columns_name_the_relation_as_postgrest() {
    let app = spawn().await;
    let undefined =
        |message: &str| json!({"code": "42703", "details": null, "hint": null, "message": message});
    for (path, message) in [
        (
            "/emb_users?select=nope",
            "column emb_users.nope does not exist",
        ),
        (
            "/emb_users?select=id,emb_messages(sum)",
            "column emb_messages_1.sum does not exist",
        ),
        (
            "/emb_users?select=id,emb_messages(id)&emb_messages.sum=eq.1",
            "column emb_messages_1.sum does not exist",
        ),
        (
            "/emb_users?select=id,emb_orders(id,billing:emb_addresses!emb_orders_billing_fkey(nope))",
            "column emb_addresses_2.nope does not exist",
        ),
        (
            "/emb_orders?select=id,buyer:emb_users(name)&order=buyer(nope)",
            "column emb_orders_buyer_1.nope does not exist",
        ),
        (
            "/emb_items?select=id,emb_items(nope)",
            "column emb_items_1.nope does not exist",
        ),
    ] {
        let r = app.get(path).await;
        error(&r, 400, undefined(message));
    }
}
