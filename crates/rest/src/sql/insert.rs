//! The rows an INSERT takes from the request body.
//!
//! Without `missing=default` the body is read with
//! `json_populate_recordset` (an absent key is NULL). With it, as
//! PostgREST v14 builds it, every row is the object of the columns'
//! defaults with the row's own keys laid over it
//! (`jsonb_build_object(<column>, <default>, …) || <row>`): each default
//! is evaluated once for every row of the body, the keys present included,
//! so a sequence or identity draws a value for every row even where the
//! row brings its own key (a bulk insert of `[{"id": 50}, {}]` takes two
//! values). The defaults are built in the columns' name order, the order
//! in which PostgREST lists them.

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
        defaults.sort_by(|a, b| a.0.cmp(b.0));
        defaults.dedup_by(|a, b| a.0 == b.0);
        // A subquery with a volatile output is never merged into the outer
        // query, so each default runs exactly once per row.
        s.push(" FROM (SELECT jsonb_build_object(");
        for (i, (name, default)) in defaults.iter().enumerate() {
            if i > 0 {
                s.push(", ");
            }
            s.literal(name).push(", ").push_catalog_sql(default);
        }
        s.push(") || \"pgrst_e\" AS \"pgrst_j\" FROM jsonb_array_elements(")
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
