//! Stage 4: one parameterised statement per plan.
//!
//! Invariant: the statement text is made only of this crate's fixed SQL,
//! quoted identifiers and types that the plan took from the schema cache,
//! checked cast words and escaped JSON-path keys; every value of the request
//! is a bind parameter (see [`builder`]). The response body is built by
//! Postgres (`json_agg`, `row_to_json`), so no row is decoded in Rust.
//! Embedded resources are `jsonb`, as PostgREST's QueryBuilder.hs builds
//! them, so their objects print as PostgREST's do (`{"id": 1, "name": "a"}`:
//! jsonb's spacing and key order) inside the top-level `json` array.

pub mod builder;
mod payload;

pub use builder::{Bind, Sql, quote_literal};

use crate::plan::{
    Action, Args, Call, CallResult, Cond, CondOp, Embed, Expr, Limited, Link, Mutation, OrderExpr,
    OrderTarget, Plan, Projection, ReadNode, Source,
};
use crate::request::{
    AggregateFn, IsValue, JoinType, JsonKey, MediaType, Nulls, Quantifier, Resolution,
};

/// What the statement's result looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One row: `total`, `page_total`, `body`, `response_headers`, `response_status`.
    Result,
    /// No rows: the command's affected-row count is the result.
    Affected,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub sql: Sql,
    pub shape: Shape,
}

/// The name of the CTE holding a mutation's returned rows.
const SOURCE_CTE: &str = "\"pgrst_source\"";

/// Renders the main statement of a plan (`None` for plans that need no SQL).
pub fn render(plan: &Plan, csv_header: Option<&str>) -> Option<Statement> {
    let mut s = Sql::named(plan);
    let shape = match &plan.action {
        Action::OpenApi | Action::Options => return None,
        Action::Read { node } => {
            wrap(&mut s, plan, node, csv_header, |s| {
                node_select(s, node, Mode::Normal, None)
            });
            Shape::Result
        }
        Action::Mutate {
            mutation,
            returning,
        } => match returning {
            None if counts_inserted(mutation) => {
                // An upsert tells inserted from merged rows (the status
                // depends on it): one result row even without a body.
                s.push("WITH ").push(SOURCE_CTE).push(" AS (");
                mutation_sql(&mut s, mutation, true);
                s.push(") SELECT NULL::bigint AS \"total\", pg_catalog.count(*) AS \"page_total\", NULL::text AS \"body\", ");
                response_gucs(&mut s);
                s.push(", ");
                inserted_column(&mut s);
                s.push(" FROM ").push(SOURCE_CTE);
                Shape::Result
            }
            None => {
                mutation_sql(&mut s, mutation, false);
                Shape::Affected
            }
            Some(node) => {
                s.push("WITH ").push(SOURCE_CTE).push(" AS (");
                mutation_sql(&mut s, mutation, true);
                s.push(") ");
                let counted = counts_inserted(mutation);
                if counted {
                    s.push("SELECT \"pgrst_w\".*, ");
                    inserted_column(&mut s);
                    s.push(" FROM (");
                }
                wrap(&mut s, plan, node, csv_header, |s| {
                    node_select(s, node, Mode::Normal, None)
                });
                if counted {
                    s.push(") AS \"pgrst_w\"");
                }
                Shape::Result
            }
        },
        Action::Call { call, result } => {
            match result {
                CallResult::Rows { node, set } => {
                    if *set {
                        wrap(&mut s, plan, node, csv_header, |s| {
                            node_select(s, node, Mode::Normal, None)
                        });
                    } else {
                        let mut single = plan.clone();
                        // CSV and GeoJSON keep their format (PostgREST
                        // `handlerF`); JSON is the one object.
                        if !matches!(
                            plan.media.representation(),
                            MediaType::Csv | MediaType::GeoJson
                        ) {
                            single.media = MediaType::SingleObject;
                        }
                        wrap_body(&mut s, &single, node, csv_header, true, |s| {
                            node_select(s, node, Mode::Normal, None)
                        });
                    }
                }
                CallResult::Scalar { set } => {
                    s.push(
                        "SELECT NULL::bigint AS \"total\", pg_catalog.count(*) AS \"page_total\", ",
                    );
                    if let Some((_, binary)) = &call.handler {
                        // A media type handler: the value itself (PostgREST
                        // SqlFragment.hs `customFuncF`); bytes travel as hex.
                        if *binary {
                            s.push("pg_catalog.encode((pg_catalog.array_agg(\"pgrst_t\".\"pgrst_scalar\"::bytea))[1], 'hex')");
                        } else {
                            s.push("(pg_catalog.array_agg(\"pgrst_t\".\"pgrst_scalar\"::text))[1]");
                        }
                    } else if *plan.media.representation() == MediaType::Csv {
                        // PostgREST's `asCsvF` over the call's one column:
                        // the header is its name, `pgrst_scalar`.
                        s.push("CASE WHEN pg_catalog.count(*) = 0 THEN '' ELSE 'pgrst_scalar' END || E'\\n' || coalesce(string_agg(substring(\"pgrst_t\"::text, 2, length(\"pgrst_t\"::text) - 2), E'\\n'), '')");
                    } else if *set {
                        s.push("coalesce(json_agg(\"pgrst_t\".\"pgrst_scalar\"), '[]')::text");
                    } else {
                        s.push("(json_agg(\"pgrst_t\".\"pgrst_scalar\")->0)::text");
                    }
                    s.push(" AS \"body\", ");
                    response_gucs(&mut s);
                    s.push(" FROM (SELECT ");
                    scalar_call(&mut s, call);
                    s.push(") AS \"pgrst_t\"");
                }
                CallResult::Void => {
                    s.push("SELECT NULL::bigint AS \"total\", pg_catalog.count(*) AS \"page_total\", NULL::text AS \"body\", ");
                    response_gucs(&mut s);
                    s.push(" FROM (SELECT ");
                    scalar_call(&mut s, call);
                    s.push(") AS \"pgrst_t\"");
                }
            }
            Shape::Result
        }
    };
    Some(Statement { sql: s, shape })
}

/// The count query for `Prefer: count=planned` (wrapped in EXPLAIN by the caller).
pub fn render_count(plan: &Plan) -> Option<Sql> {
    let node = match &plan.action {
        Action::Read { node } => node,
        Action::Call {
            result: CallResult::Rows { node, .. },
            ..
        } => node,
        _ => return None,
    };
    let mut s = Sql::named(plan);
    s.push("EXPLAIN (FORMAT JSON) ");
    node_select(&mut s, node, Mode::Count, None);
    Some(s)
}

/// Whether the statement counts inserted rows apart from merged ones: a
/// merging upsert (POST with `resolution=merge-duplicates`, PUT).
fn counts_inserted(m: &Mutation) -> bool {
    matches!(
        m,
        Mutation::Insert {
            on_conflict: Some((_, Resolution::MergeDuplicates)),
            ..
        }
    )
}

/// The setting that counts the rows an upsert merged (its `DO UPDATE`).
const MERGED_SETTING: &str = "'plinth.merged'";

/// `"inserted"`: the rows written minus the rows merged.
fn inserted_column(s: &mut Sql) {
    s.push("(SELECT pg_catalog.count(*) FROM ")
        .push(SOURCE_CTE)
        .push(") - coalesce(nullif(current_setting(")
        .push(MERGED_SETTING)
        .push(", true), '')::bigint, 0) AS \"inserted\"");
}

fn response_gucs(s: &mut Sql) {
    s.push("nullif(current_setting('response.headers', true), '') AS \"response_headers\", nullif(current_setting('response.status', true), '') AS \"response_status\"");
}

/// `SELECT total, page_total, body, gucs FROM (<inner>) AS "pgrst_t"`.
fn wrap(
    s: &mut Sql,
    plan: &Plan,
    node: &ReadNode,
    csv_header: Option<&str>,
    inner: impl Fn(&mut Sql),
) {
    wrap_body(
        s,
        plan,
        node,
        csv_header,
        plan.count == Some(crate::request::CountPref::Exact)
            || plan.count == Some(crate::request::CountPref::Estimated),
        inner,
    )
}

fn wrap_body(
    s: &mut Sql,
    plan: &Plan,
    node: &ReadNode,
    csv_header: Option<&str>,
    exact_count: bool,
    inner: impl Fn(&mut Sql),
) {
    s.push("SELECT ");
    let counts_rows = matches!(plan.action, Action::Read { .. } | Action::Call { .. });
    if exact_count
        && counts_rows
        && !matches!(
            plan.action,
            Action::Call {
                result: CallResult::Rows { set: false, .. },
                ..
            }
        )
    {
        s.push("(SELECT pg_catalog.count(*) FROM (");
        node_select(s, node, Mode::Count, None);
        s.push(") AS \"pgrst_c\")");
    } else if exact_count && !counts_rows {
        s.push("(SELECT pg_catalog.count(*) FROM ")
            .push(SOURCE_CTE)
            .push(")");
    } else {
        s.push("NULL::bigint");
    }
    s.push(" AS \"total\", pg_catalog.count(\"pgrst_t\") AS \"page_total\", ");
    // A plan explains the statement of the representation it is `for`.
    match (plan.media.representation(), csv_header) {
        // PostgREST SqlFragment.hs `asCsvF`: the output names (none for no
        // rows), a newline, then each row's record text without its
        // parentheses (PostgreSQL's quoting: `"` around values with commas,
        // quotes, parentheses, backslashes or spaces, inner `"` and `\`
        // doubled, nulls empty), one per line.
        (MediaType::Csv, Some(header)) => {
            s.push("CASE WHEN pg_catalog.count(\"pgrst_t\") = 0 THEN '' ELSE ");
            s.bind(Bind::Text(header.to_owned()));
            s.push(" END || E'\\n' || coalesce(string_agg(substring(\"pgrst_t\"::text, 2, length(\"pgrst_t\"::text) - 2), E'\\n'), '')");
        }
        // PostgREST SqlFragment.hs `asGeoJsonF`: PostGIS makes each row a
        // Feature of its geometry column.
        (MediaType::GeoJson, _) => {
            s.push("json_build_object('type', 'FeatureCollection', 'features', coalesce(json_agg(ST_AsGeoJSON(\"pgrst_t\")::json), '[]'))::text");
        }
        (MediaType::SingleObject, _) => {
            if plan.strip_nulls {
                s.push("coalesce(json_strip_nulls(json_agg(\"pgrst_t\")->0)::text, '')");
            } else {
                s.push("coalesce((json_agg(\"pgrst_t\")->0)::text, '')");
            }
        }
        _ => {
            if plan.strip_nulls {
                s.push("coalesce(json_strip_nulls(json_agg(\"pgrst_t\")), '[]')::text");
            } else {
                s.push("coalesce(json_agg(\"pgrst_t\"), '[]')::text");
            }
        }
    }
    s.push(" AS \"body\", ");
    response_gucs(s);
    s.push(" FROM (");
    inner(s);
    s.push(") AS \"pgrst_t\"");
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Normal,
    /// `SELECT 1`, only the joins that can drop rows, no order or pagination.
    Count,
}

/// `SELECT … FROM … WHERE … ORDER BY … LIMIT … OFFSET …` for one node.
/// `link`: the parent's alias and how this node joins it.
fn node_select(s: &mut Sql, node: &ReadNode, mode: Mode, link: Option<(&Link, usize)>) {
    node_select_as(s, node, mode, link, false)
}

/// `hoist`: the node is a to-one spread. Its aggregates (and those of
/// to-one spreads inside it) select only their argument; the nearest
/// ancestor that is not a to-one spread applies them, grouped by its other
/// output (PostgREST Plan.hs, `hoistSpreadAggFunctions`).
fn node_select_as(
    s: &mut Sql,
    node: &ReadNode,
    mode: Mode,
    link: Option<(&Link, usize)>,
    hoist: bool,
) {
    let grouped = !hoist && node.has_aggregates_with_spreads();
    s.push("SELECT ");
    if mode == Mode::Count {
        s.push("1");
    } else {
        let mut first = true;
        for p in &node.projections {
            match p {
                Projection::Star => {
                    sep(s, &mut first);
                    s.alias(node.alias).push(".*");
                }
                Projection::Column { expr, cast, name } => {
                    sep(s, &mut first);
                    expr_sql(s, expr);
                    if let Some(c) = cast {
                        s.cast(c);
                    }
                    s.push(" AS ").ident(name);
                }
                Projection::Aggregate {
                    func,
                    expr,
                    arg_cast,
                    cast,
                    name,
                } => {
                    sep(s, &mut first);
                    if hoist {
                        match expr {
                            Some(e) => {
                                expr_sql(s, e);
                                if let Some(c) = arg_cast {
                                    s.cast(c);
                                }
                            }
                            // `count()`: the whole row, null when absent.
                            None => {
                                s.alias_row(node.alias);
                            }
                        }
                        s.push(" AS ").ident(name);
                        continue;
                    }
                    s.push(aggregate_fn(*func));
                    match expr {
                        Some(e) => {
                            expr_sql(s, e);
                            if let Some(c) = arg_cast {
                                s.cast(c);
                            }
                        }
                        None => {
                            s.push("*");
                        }
                    }
                    s.push(")");
                    if let Some(c) = cast {
                        s.cast(c);
                    }
                    s.push(" AS ").ident(name);
                }
                Projection::Embed(i) => {
                    let e = &node.embeds[*i];
                    if e.node.projections.is_empty() {
                        continue;
                    }
                    if e.spread && e.to_one {
                        for (n, agg) in spread_outputs(&e.node) {
                            sep(s, &mut first);
                            match agg {
                                Some((func, cast)) if !hoist => {
                                    s.push(aggregate_fn(func));
                                    s.alias(e.lateral).push(".").ident(&n).push(")");
                                    if let Some(c) = cast {
                                        s.cast(c);
                                    }
                                }
                                _ => {
                                    s.alias(e.lateral).push(".").ident(&n);
                                    if grouped && spread_is_json(&e.node, &n) {
                                        s.push("::jsonb");
                                    }
                                }
                            }
                            s.push(" AS ").ident(&n);
                        }
                    } else if e.spread {
                        for n in e.node.output_names() {
                            sep(s, &mut first);
                            s.alias(e.lateral).push(".").ident(&n);
                            if grouped {
                                s.push("::jsonb");
                            }
                            s.push(" AS ").ident(&n);
                        }
                    } else {
                        sep(s, &mut first);
                        s.alias(e.lateral).push(".\"body\"");
                        // json has no equality operator: a grouped node
                        // selects and groups by its embeds as jsonb (as
                        // PostgREST builds every embed; elsewhere json is
                        // kept, cheaper to build).
                        if grouped {
                            s.push("::jsonb");
                        }
                        s.push(" AS ").ident(&e.name);
                    }
                }
            }
        }
        // What the parent orders by, beside the output.
        for (i, h) in node.hidden.iter().enumerate() {
            sep(s, &mut first);
            expr_sql(s, h);
            s.push(" AS ").hidden(i);
        }
    }
    s.push(" FROM ");
    source_sql(s, &node.source, node.alias);
    if let Some((
        Link::Junction {
            table,
            alias,
            child,
            ..
        },
        _,
    )) = link
    {
        s.push(" INNER JOIN ")
            .qualified(table)
            .declare(*alias)
            .push(" ON ");
        for (i, (jc, cc)) in child.iter().enumerate() {
            if i > 0 {
                s.push(" AND ");
            }
            s.alias(*alias)
                .push(".")
                .ident(jc)
                .push(" = ")
                .alias(node.alias)
                .push(".")
                .ident(cc);
        }
    }
    for e in &node.embeds {
        let needed = mode == Mode::Normal
            || e.join == JoinType::Inner
            || node.conditions.iter().any(|c| cond_uses_embed(c, node, e));
        if needed {
            embed_join(s, node, e, mode);
        }
    }
    let mut conds: Vec<&Cond> = node.conditions.iter().collect();
    let has_link = matches!(link, Some((Link::Columns(_) | Link::Junction { .. }, _)));
    if has_link || !conds.is_empty() {
        s.push(" WHERE ");
        let mut first = true;
        if let Some((link, parent)) = link {
            match link {
                Link::Columns(pairs) => {
                    for (c, p) in pairs {
                        and(s, &mut first);
                        s.alias(node.alias)
                            .push(".")
                            .ident(c)
                            .push(" = ")
                            .alias(parent)
                            .push(".")
                            .ident(p);
                    }
                }
                Link::Junction {
                    alias,
                    parent: pairs,
                    ..
                } => {
                    for (jc, p) in pairs {
                        and(s, &mut first);
                        s.alias(*alias)
                            .push(".")
                            .ident(jc)
                            .push(" = ")
                            .alias(parent)
                            .push(".")
                            .ident(p);
                    }
                }
                Link::None => {}
            }
        }
        for c in conds.drain(..) {
            and(s, &mut first);
            cond_sql(s, node, c);
        }
    }
    if mode == Mode::Count {
        return;
    }
    if grouped {
        group_by(s, node);
    }
    order_by(s, &node.order);
    if let Some(limit) = node.range.limit {
        s.push(" LIMIT ").int(limit);
    }
    if node.range.offset > 0 {
        s.push(" OFFSET ").int(node.range.offset);
    }
}

fn aggregate_fn(func: AggregateFn) -> &'static str {
    match func {
        AggregateFn::Count => "pg_catalog.count(",
        AggregateFn::Sum => "pg_catalog.sum(",
        AggregateFn::Avg => "pg_catalog.avg(",
        AggregateFn::Min => "pg_catalog.min(",
        AggregateFn::Max => "pg_catalog.max(",
    }
}

/// What a to-one spread puts in its parent's output: each name with the
/// aggregate the parent applies to it (hoisted from the spread).
fn spread_outputs(node: &ReadNode) -> Vec<(String, Option<(AggregateFn, Option<&str>)>)> {
    let mut out = Vec::new();
    for p in &node.projections {
        match p {
            Projection::Star => out.extend(node.columns.iter().map(|c| (c.clone(), None))),
            Projection::Column { name, .. } => out.push((name.clone(), None)),
            Projection::Aggregate {
                func, cast, name, ..
            } => out.push((name.clone(), Some((*func, cast.as_deref())))),
            Projection::Embed(i) => {
                let e = &node.embeds[*i];
                if e.node.projections.is_empty() {
                    continue;
                }
                if e.spread && e.to_one {
                    out.extend(spread_outputs(&e.node));
                } else if e.spread {
                    out.extend(e.node.output_names().into_iter().map(|n| (n, None)));
                } else {
                    out.push((e.name.clone(), None));
                }
            }
        }
    }
    out
}

/// Whether output `name` of a to-one spread is json built by an embed
/// (grouped as jsonb).
fn spread_is_json(node: &ReadNode, name: &str) -> bool {
    node.projections.iter().any(|p| match p {
        Projection::Embed(i) => {
            let e = &node.embeds[*i];
            if e.spread && e.to_one {
                spread_is_json(&e.node, name)
            } else if e.spread {
                e.node.output_names().iter().any(|n| n == name)
            } else {
                e.name == name
            }
        }
        _ => false,
    })
}

/// ` GROUP BY` every output that is not aggregated: columns, the columns of
/// `*`, embeds (as jsonb) and what to-one spreads bring that they do not
/// aggregate (PostgREST SqlFragment.hs, `groupF`).
fn group_by(s: &mut Sql, node: &ReadNode) {
    let mut first = true;
    let mut term = |s: &mut Sql| {
        s.push(if first { " GROUP BY " } else { ", " });
        first = false;
    };
    for p in &node.projections {
        match p {
            Projection::Star => {
                for c in &node.columns {
                    term(s);
                    s.alias(node.alias).push(".").ident(c);
                }
            }
            Projection::Column { expr, .. } => {
                term(s);
                expr_sql(s, expr);
            }
            Projection::Aggregate { .. } => {}
            Projection::Embed(i) => {
                let e = &node.embeds[*i];
                if e.node.projections.is_empty() {
                    continue;
                }
                if e.spread && e.to_one {
                    for (n, agg) in spread_outputs(&e.node) {
                        if agg.is_none() {
                            term(s);
                            s.alias(e.lateral).push(".").ident(&n);
                            if spread_is_json(&e.node, &n) {
                                s.push("::jsonb");
                            }
                        }
                    }
                } else if e.spread {
                    for n in e.node.output_names() {
                        term(s);
                        s.alias(e.lateral).push(".").ident(&n).push("::jsonb");
                    }
                } else {
                    term(s);
                    s.alias(e.lateral).push(".\"body\"::jsonb");
                }
            }
        }
    }
}

/// ` ORDER BY …` (nothing for no terms).
fn order_by(s: &mut Sql, order: &[OrderExpr]) {
    for (i, o) in order.iter().enumerate() {
        s.push(if i == 0 { " ORDER BY " } else { ", " });
        match &o.target {
            OrderTarget::Expr(e) => {
                expr_sql(s, e);
            }
            OrderTarget::Related { lateral, index } => {
                s.alias(*lateral).push(".").hidden(*index);
            }
        }
        s.push(if o.desc { " DESC" } else { " ASC" });
        match o.nulls {
            Some(Nulls::First) => {
                s.push(" NULLS FIRST");
            }
            Some(Nulls::Last) => {
                s.push(" NULLS LAST");
            }
            None => {}
        }
    }
}

fn cond_uses_embed(c: &Cond, node: &ReadNode, e: &Embed) -> bool {
    match c {
        Cond::EmbedPresent { embed, .. } => std::ptr::eq(&node.embeds[*embed], e),
        Cond::Group { children, .. } => children.iter().any(|c| cond_uses_embed(c, node, e)),
        Cond::Filter { .. } => false,
    }
}

fn sep(s: &mut Sql, first: &mut bool) {
    if !*first {
        s.push(", ");
    }
    *first = false;
}

fn and(s: &mut Sql, first: &mut bool) {
    if !*first {
        s.push(" AND ");
    }
    *first = false;
}

fn source_sql(s: &mut Sql, source: &Source, alias: usize) {
    match source {
        Source::Table(q) => {
            s.qualified(q);
        }
        Source::Mutated => {
            s.push(SOURCE_CTE);
        }
        Source::Call(call) => {
            // The function's rows under PostgREST's names: the call is
            // `pgrst_call`, its rows are named after the relation.
            s.push("(SELECT \"pgrst_call\".* FROM ");
            if let Args::Json { body, params } = &call.args
                && !params.is_empty()
            {
                json_args_from(s, body, params);
                s.push(" CROSS JOIN LATERAL ");
            }
            call_expr(s, call);
            s.push(" AS \"pgrst_call\")");
        }
        Source::Computed { function, parent } => {
            s.qualified(function).push("(").alias_row(*parent).push(")");
        }
    }
    s.declare(alias);
}

fn json_args_from(
    s: &mut Sql,
    body: &str,
    params: &[(String, crate::schema_cache::TypeRef, bool)],
) {
    s.push("json_to_record(")
        .bind(Bind::Text(body.to_owned()))
        .push("::json) AS \"pgrst_args\"(");
    for (i, (name, ty, _)) in params.iter().enumerate() {
        if i > 0 {
            s.push(", ");
        }
        s.ident(name).push(" ").ty(ty);
    }
    s.push(")");
}

/// `"s"."fn"(named args)`.
fn call_expr(s: &mut Sql, call: &Call) {
    s.qualified(&call.function).push("(");
    match &call.args {
        Args::Json { params, .. } => {
            for (i, (name, _, variadic)) in params.iter().enumerate() {
                if i > 0 {
                    s.push(", ");
                }
                if *variadic {
                    s.push("VARIADIC ");
                }
                s.ident(name).push(" := \"pgrst_args\".").ident(name);
            }
        }
        Args::Single { body, ty } => {
            s.bind(Bind::Text(body.clone())).push("::").ty(ty);
        }
        Args::Text(args) => {
            for (i, (name, ty, variadic, value)) in args.iter().enumerate() {
                if i > 0 {
                    s.push(", ");
                }
                if *variadic {
                    s.push("VARIADIC ");
                }
                s.ident(name).push(" := ").typed_text(value, ty);
            }
        }
    }
    s.push(")");
}

/// `"s"."fn"(…) AS "pgrst_scalar" [FROM json_to_record(…)]`.
fn scalar_call(s: &mut Sql, call: &Call) {
    call_expr(s, call);
    s.push(" AS \"pgrst_scalar\"");
    if let Args::Json { body, params } = &call.args
        && !params.is_empty()
    {
        s.push(" FROM ");
        json_args_from(s, body, params);
    }
}

fn embed_join(s: &mut Sql, parent: &ReadNode, e: &Embed, mode: Mode) {
    let inner = e.join == JoinType::Inner;
    s.push(if inner {
        " INNER JOIN LATERAL ("
    } else {
        " LEFT JOIN LATERAL ("
    });
    let link = Some((&e.link, parent.alias));
    if mode == Mode::Count {
        // Only whether a row exists matters.
        if e.to_one {
            s.push("SELECT 1 AS \"body\" FROM (");
            node_select(s, &e.node, Mode::Count, link);
            s.push(") AS ").alias(e.lateral);
        } else {
            s.push("SELECT json_build_array() AS \"body\" FROM (");
            node_select(s, &e.node, Mode::Count, link);
            s.push(") AS ").alias(e.lateral);
            if inner {
                s.push(" HAVING pg_catalog.count(*) > 0");
            } else {
                s.push(" LIMIT 1");
            }
        }
    } else if e.spread && e.to_one {
        node_select_as(s, &e.node, Mode::Normal, link, true);
    } else if e.spread {
        s.push("SELECT ");
        for (i, n) in e.node.output_names().iter().enumerate() {
            if i > 0 {
                s.push(", ");
            }
            s.push("coalesce(json_agg(")
                .alias(e.lateral)
                .push(".")
                .ident(n)
                .push("), '[]')::jsonb AS ")
                .ident(n);
        }
        s.push(" FROM (");
        node_select(s, &e.node, Mode::Normal, link);
        s.push(") AS ").alias(e.lateral);
        if inner {
            s.push(" HAVING pg_catalog.count(*) > 0");
        }
    } else if e.to_one && !e.node.hidden.is_empty() {
        // The parent orders by hidden columns: the body is built from the
        // output columns only, the hidden ones are passed beside it.
        s.push("SELECT (SELECT row_to_json(\"pgrst_row\") FROM (SELECT ");
        for (i, n) in e.node.output_names().iter().enumerate() {
            if i > 0 {
                s.push(", ");
            }
            s.alias(e.lateral).push(".").ident(n).push(" AS ").ident(n);
        }
        s.push(") AS \"pgrst_row\")::jsonb AS \"body\"");
        for i in 0..e.node.hidden.len() {
            s.push(", ")
                .alias(e.lateral)
                .push(".")
                .hidden(i)
                .push(" AS ")
                .hidden(i);
        }
        s.push(" FROM (");
        node_select(s, &e.node, Mode::Normal, link);
        s.push(") AS ").alias(e.lateral);
    } else if e.to_one {
        s.push("SELECT row_to_json(")
            .alias(e.lateral)
            .push(")::jsonb AS \"body\" FROM (");
        node_select(s, &e.node, Mode::Normal, link);
        s.push(") AS ").alias(e.lateral);
    } else {
        s.push("SELECT coalesce(json_agg(")
            .alias(e.lateral)
            .push(")::jsonb, '[]') AS \"body\" FROM (");
        node_select(s, &e.node, Mode::Normal, link);
        s.push(") AS ").alias(e.lateral);
        if inner {
            s.push(" HAVING pg_catalog.count(*) > 0");
        }
    }
    s.push(") AS ").alias(e.lateral).push(" ON TRUE");
}

fn expr_sql(s: &mut Sql, e: &Expr) {
    match &e.computed {
        Some(f) => {
            s.qualified(f).push("(").alias_row(e.alias).push(")");
        }
        None => {
            s.alias(e.alias).push(".").ident(&e.column);
        }
    }
    for step in &e.json_path {
        s.push(if step.text { "->>" } else { "->" });
        match &step.key {
            JsonKey::Key(k) => {
                s.literal(k);
            }
            JsonKey::Index(i) => {
                s.push("(").int(*i).push("::int)");
            }
        }
    }
}

fn cond_sql(s: &mut Sql, node: &ReadNode, c: &Cond) {
    match c {
        Cond::Group {
            or,
            negate,
            children,
        } => {
            if *negate {
                s.push("NOT ");
            }
            if children.is_empty() {
                s.push(if *or { "FALSE" } else { "TRUE" });
                return;
            }
            s.push("(");
            for (i, child) in children.iter().enumerate() {
                if i > 0 {
                    s.push(if *or { " OR " } else { " AND " });
                }
                cond_sql(s, node, child);
            }
            s.push(")");
        }
        Cond::EmbedPresent { embed, present } => {
            let e = &node.embeds[*embed];
            if e.to_one {
                s.alias(e.lateral).push(".\"body\"");
                s.push(if *present { " IS NOT NULL" } else { " IS NULL" });
            } else {
                s.push("json_array_length(coalesce(")
                    .alias(e.lateral)
                    .push(".\"body\", '[]'))");
                s.push(if *present { " > 0" } else { " = 0" });
            }
        }
        Cond::Filter { expr, negate, op } => {
            if *negate {
                s.push("NOT (");
            }
            match op {
                CondOp::Op { op, value } => {
                    expr_sql(s, expr);
                    s.push(" ").push(op.sql()).push(" ");
                    if op.is_pattern() {
                        s.bind(Bind::Text(value.clone()));
                    } else {
                        s.typed_text(value, &expr.ty);
                    }
                }
                CondOp::Quant { op, quant, values } => {
                    expr_sql(s, expr);
                    s.push(" ").push(op.sql()).push(match quant {
                        Quantifier::Any => " ANY(",
                        Quantifier::All => " ALL(",
                    });
                    s.bind(Bind::TextArray(values.clone()));
                    if !op.is_pattern() {
                        s.push("::").ty(&expr.ty).push("[]");
                    }
                    s.push(")");
                }
                CondOp::In(values) => {
                    expr_sql(s, expr);
                    s.push(" = ANY(")
                        .bind(Bind::TextArray(values.clone()))
                        .push("::")
                        .ty(&expr.ty)
                        .push("[])");
                }
                CondOp::Is(v) => {
                    expr_sql(s, expr);
                    s.push(match v {
                        IsValue::Null => " IS NULL",
                        IsValue::NotNull => " IS NOT NULL",
                        IsValue::True => " IS TRUE",
                        IsValue::False => " IS FALSE",
                        IsValue::Unknown => " IS UNKNOWN",
                    });
                }
                CondOp::Fts {
                    kind,
                    config,
                    value,
                } => {
                    let is_vector = expr.ty.name == "tsvector" && expr.json_path.is_empty();
                    if is_vector {
                        expr_sql(s, expr);
                    } else {
                        s.push("to_tsvector(");
                        if let Some(c) = config {
                            s.bind(Bind::Text(c.clone()))
                                .push("::pg_catalog.regconfig, ");
                        }
                        expr_sql(s, expr);
                        s.push(")");
                    }
                    s.push(" @@ ").push(kind.function()).push("(");
                    if let Some(c) = config {
                        s.bind(Bind::Text(c.clone()))
                            .push("::pg_catalog.regconfig, ");
                    }
                    s.bind(Bind::Text(value.clone())).push(")");
                }
            }
            if *negate {
                s.push(")");
            }
        }
    }
}

fn mutation_sql(s: &mut Sql, m: &Mutation, returning: bool) {
    match m {
        Mutation::Insert {
            table,
            columns,
            body,
            on_conflict,
            put_key,
        } => {
            s.push("INSERT INTO ").qualified(table);
            if columns.is_empty() {
                if body.trim() == "[]" {
                    // Nothing to insert: a statement that inserts no row.
                    s.push(" SELECT * FROM ")
                        .qualified(table)
                        .push(" WHERE FALSE");
                } else {
                    // `{}` or `[{}, {}]`: one row of defaults per object.
                    s.push(" SELECT FROM json_array_elements(")
                        .bind(Bind::Text(body.clone()))
                        .push("::json) AS \"pgrst_body\"(\"pgrst_j\")");
                    if !put_key.is_empty() {
                        // PUT without the key in the body matches nothing.
                        s.push(" WHERE FALSE");
                    }
                }
            } else {
                s.push(" (");
                for (i, c) in columns.iter().enumerate() {
                    if i > 0 {
                        s.push(", ");
                    }
                    s.ident(&c.name);
                }
                s.push(") ");
                payload::rows(s, table, columns, body, put_key);
            }
            if let Some((cols, resolution)) = on_conflict {
                s.push(" ON CONFLICT (");
                for (i, c) in cols.iter().enumerate() {
                    if i > 0 {
                        s.push(", ");
                    }
                    s.ident(c);
                }
                s.push(")");
                let updatable: Vec<_> = columns.iter().collect();
                if *resolution == Resolution::IgnoreDuplicates || updatable.is_empty() {
                    s.push(" DO NOTHING");
                } else {
                    s.push(" DO UPDATE SET ");
                    for (i, c) in updatable.iter().enumerate() {
                        if i > 0 {
                            s.push(", ");
                        }
                        s.ident(&c.name).push(" = EXCLUDED.").ident(&c.name);
                    }
                    // Counts the merged rows (always true): inserted rows
                    // are the rest (see `inserted_column`).
                    s.push(" WHERE set_config(")
                        .push(MERGED_SETTING)
                        .push(", (coalesce(nullif(current_setting(")
                        .push(MERGED_SETTING)
                        .push(", true), '')::bigint, 0) + 1)::text, true) IS NOT NULL");
                }
            }
            if returning {
                s.push(" RETURNING ").qualified(table).push(".*");
            }
        }
        Mutation::Update {
            table,
            alias,
            columns,
            defaults,
            body,
            conditions,
            limited,
        } => {
            if columns.is_empty() {
                // An empty payload changes nothing.
                s.push("SELECT * FROM ")
                    .qualified(table)
                    .push(" WHERE FALSE");
                return;
            }
            s.push("UPDATE ")
                .qualified(table)
                .declare(*alias)
                .push(" SET ");
            for (i, c) in columns.iter().enumerate() {
                if i > 0 {
                    s.push(", ");
                }
                s.ident(c).push(" = \"pgrst_body\".").ident(c);
            }
            s.push(" FROM ");
            payload::update_row(s, table, defaults, body);
            mutation_where(s, table, *alias, conditions, limited.as_ref());
            if returning {
                s.push(" RETURNING ").alias(*alias).push(".*");
            }
        }
        Mutation::Delete {
            table,
            alias,
            conditions,
            limited,
        } => {
            s.push("DELETE FROM ").qualified(table).declare(*alias);
            mutation_where(s, table, *alias, conditions, limited.as_ref());
            if returning {
                s.push(" RETURNING ").alias(*alias).push(".*");
            }
        }
    }
}

/// The WHERE of an UPDATE/DELETE. Limited: the rows whose key is among the
/// keys of the filtered, ordered page, read from the same table under the
/// same alias (the subquery's alias shadows the outer one).
fn mutation_where(
    s: &mut Sql,
    table: &crate::schema_cache::QualifiedName,
    alias: usize,
    conditions: &[Cond],
    limited: Option<&Limited>,
) {
    let Some(limited) = limited else {
        where_clause(s, conditions);
        return;
    };
    let columns = |s: &mut Sql| {
        if limited.key.is_empty() {
            s.alias(alias)
                .push(".\"tableoid\", ")
                .alias(alias)
                .push(".\"ctid\"");
        } else {
            for (i, k) in limited.key.iter().enumerate() {
                if i > 0 {
                    s.push(", ");
                }
                s.alias(alias).push(".").ident(k);
            }
        }
    };
    s.push(" WHERE (");
    columns(s);
    s.push(") IN (SELECT ");
    columns(s);
    s.push(" FROM ").qualified(table).declare(alias);
    where_clause(s, conditions);
    order_by(s, &limited.order);
    if let Some(limit) = limited.range.limit {
        s.push(" LIMIT ").int(limit);
    }
    if limited.range.offset > 0 {
        s.push(" OFFSET ").int(limited.range.offset);
    }
    s.push(")");
}

fn where_clause(s: &mut Sql, conditions: &[Cond]) {
    if conditions.is_empty() {
        return;
    }
    let empty = ReadNode {
        source: Source::Mutated,
        alias: 0,
        columns: Vec::new(),
        projections: Vec::new(),
        conditions: Vec::new(),
        order: Vec::new(),
        range: Default::default(),
        embeds: Vec::new(),
        hidden: Vec::new(),
    };
    s.push(" WHERE ");
    for (i, c) in conditions.iter().enumerate() {
        if i > 0 {
            s.push(" AND ");
        }
        cond_sql(s, &empty, c);
    }
}

#[cfg(test)]
mod tests;
