//! The rows a write takes from the request's payload.
//!
//! Without `missing=default` the body is read with
//! `json_populate_recordset` (`json_populate_record` for PATCH): an absent
//! key is NULL. With it, as PostgREST v14 builds it, a row is the object of
//! the named columns' defaults with the row's own keys laid over it
//! (`jsonb_build_object(<column>, <default>, …) || <row>`), the defaults in
//! the columns' name order, the order in which PostgREST lists them. So
//! every default is evaluated, the keys present included: once for every
//! row of an insert (a sequence or identity draws a value for every row,
//! even where the row brings its own key: `[{"id": 50}, {}]` takes two), and
//! once for the whole of a PATCH (every row it changes gets the same value).

use super::builder::{Bind, Sql};
use crate::plan::InsertColumn;
use crate::schema_cache::{QualifiedName, TypeRef};

/// `SELECT <columns> FROM <the body's rows> [WHERE <put key>]`, after
/// `INSERT INTO "s"."t" (<columns>) `; `columns` is not empty.
pub(super) fn rows(
    s: &mut Sql,
    table: &QualifiedName,
    columns: &[InsertColumn],
    body: &str,
    put_key: &[(String, String, TypeRef)],
) {
    s.push("SELECT ");
    for (i, c) in columns.iter().enumerate() {
        if i > 0 {
            s.push(", ");
        }
        s.push("\"pgrst_body\".").ident(&c.name);
    }
    let mut defaults: Vec<(&str, &str)> = columns
        .iter()
        .filter_map(|c| c.default.as_deref().map(|d| (c.name.as_str(), d)))
        .collect();
    if defaults.is_empty() {
        s.push(" FROM json_populate_recordset(NULL::")
            .qualified(table)
            .push(", ")
            .bind(Bind::Text(body.to_owned()))
            .push("::json) AS \"pgrst_body\"");
    } else {
        // A subquery with a volatile output is never merged into the outer
        // query, so each default runs exactly once per row.
        s.push(" FROM (SELECT ");
        defaults_object(s, &mut defaults);
        s.push(" || \"pgrst_e\" AS \"pgrst_j\" FROM jsonb_array_elements(")
            .bind(Bind::Text(body.to_owned()))
            .push("::jsonb) AS \"pgrst_elems\"(\"pgrst_e\")) AS \"pgrst_defs\" CROSS JOIN LATERAL jsonb_populate_record(NULL::")
            .qualified(table)
            .push(", \"pgrst_defs\".\"pgrst_j\") AS \"pgrst_body\"");
    }
    // PUT: only the row the URL names.
    for (i, (column, value, ty)) in put_key.iter().enumerate() {
        s.push(if i == 0 { " WHERE " } else { " AND " });
        s.push("\"pgrst_body\".")
            .ident(column)
            .push(" = ")
            .bind(Bind::Text(value.clone()))
            .push("::")
            .ty(ty);
    }
}

/// The row of a PATCH body, after `UPDATE … SET … FROM `: with defaults,
/// their object is built by an uncorrelated subquery, which PostgreSQL
/// evaluates once for the statement.
pub(super) fn update_row(
    s: &mut Sql,
    table: &QualifiedName,
    defaults: &[(String, String)],
    body: &str,
) {
    if defaults.is_empty() {
        s.push("(SELECT * FROM json_populate_record(NULL::")
            .qualified(table)
            .push(", ")
            .bind(Bind::Text(body.to_owned()))
            .push("::json)) AS \"pgrst_body\"");
        return;
    }
    let mut defaults: Vec<(&str, &str)> = defaults
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_str()))
        .collect();
    s.push("jsonb_populate_record(NULL::")
        .qualified(table)
        .push(", (SELECT ");
    defaults_object(s, &mut defaults);
    s.push(" || ")
        .bind(Bind::Text(body.to_owned()))
        .push("::jsonb)) AS \"pgrst_body\"");
}

/// `jsonb_build_object(<column>, (<default>), …)`, by column name (in
/// parts of 50 columns joined by `||`: a function takes at most 100
/// arguments).
fn defaults_object(s: &mut Sql, defaults: &mut Vec<(&str, &str)>) {
    defaults.sort_by(|a, b| a.0.cmp(b.0));
    defaults.dedup_by(|a, b| a.0 == b.0);
    for (part, chunk) in defaults.chunks(50).enumerate() {
        s.push(if part == 0 {
            "jsonb_build_object("
        } else {
            " || jsonb_build_object("
        });
        for (i, (name, default)) in chunk.iter().enumerate() {
            if i > 0 {
                s.push(", ");
            }
            s.literal(name).push(", ").push_catalog_sql(default);
        }
        s.push(")");
    }
}
