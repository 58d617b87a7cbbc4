//! Stage 3: resolve an [`ApiRequest`] against a [`SchemaCache`] snapshot.
//!
//! Invariant: plan never touches the database. Every name that leaves this
//! stage was found in the cache (tables, columns, relationships, functions);
//! unknown names are PGRST errors (PGRST205 table, PGRST200/201
//! relationship, PGRST202/203 function, PGRST204 payload column, 42703
//! column) or PGRST108/123 for misuse.

pub mod alias;

use std::collections::BTreeSet;

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::RestConfig;
use crate::error::ApiError;
use crate::error::fuzzy::{self, FuzzySet};
use crate::request::{
    AggregateFn, ApiRequest, CountPref, Field, Filter, FtsKind, IsValue, JoinType, JsonStep, Logic,
    MediaType, Method, Operation, Operator, OrderTerm, Preferences, Quantifier, Range, Resolution,
    ReturnPref, SelectItem, Target, parse_filter_param,
};
use crate::schema_cache::{
    Column, ForeignKey, Function, QualifiedName, Returns, SchemaCache, Table, TableKind, TypeRef,
    Volatility,
};

/// A resolved column expression: `<rel>."col"->'a'->>'b'`, or `"s"."fn"(<rel's row>)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub alias: usize,
    pub column: String,
    /// A computed column: the function taking the row.
    pub computed: Option<QualifiedName>,
    pub json_path: Vec<JsonStep>,
    /// The type of the expression (after the JSON path).
    pub ty: TypeRef,
    /// Set when the JSON path navigates a `json` (not `jsonb`) column.
    pub json_is_jsonb: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Projection {
    /// `<rel>.*`
    Star,
    Column {
        expr: Expr,
        cast: Option<String>,
        name: String,
    },
    Aggregate {
        func: AggregateFn,
        /// `None`: `count()` / `count(*)`.
        expr: Option<Expr>,
        arg_cast: Option<String>,
        cast: Option<String>,
        name: String,
    },
    /// The i-th embed of the node.
    Embed(usize),
}

/// A condition of a WHERE clause.
#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    Filter {
        expr: Expr,
        negate: bool,
        op: CondOp,
    },
    Group {
        or: bool,
        negate: bool,
        children: Vec<Cond>,
    },
    /// `embed=is.null` / `embed=not.is.null` on an embedded resource.
    EmbedPresent { embed: usize, present: bool },
}

#[derive(Debug, Clone, PartialEq)]
pub enum CondOp {
    Op {
        op: Operator,
        value: String,
    },
    Quant {
        op: Operator,
        quant: Quantifier,
        values: Vec<String>,
    },
    In(Vec<String>),
    Is(IsValue),
    Fts {
        kind: FtsKind,
        config: Option<String>,
        value: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct OrderExpr {
    pub target: OrderTarget,
    pub desc: bool,
    pub nulls: Option<crate::request::Nulls>,
}

/// What an `order` term sorts by.
#[derive(Debug, Clone, PartialEq)]
pub enum OrderTarget {
    /// A column (or computed column, JSON path) of the node itself.
    Expr(Expr),
    /// `order=author(name)`: the `index`-th hidden expression of the to-one
    /// embed whose lateral subquery is `lateral`.
    Related { lateral: usize, index: usize },
}

/// Where a node's rows come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Table(QualifiedName),
    /// The rows a mutation returned (`pgrst_source`).
    Mutated,
    /// The rows of a function call (RPC on a set-returning function).
    Call(Box<Call>),
    /// A computed relationship: `fn(parent row)`.
    Computed {
        function: QualifiedName,
        parent: usize,
    },
}

/// How a child node meets its parent.
#[derive(Debug, Clone, PartialEq)]
pub enum Link {
    /// `child.c = parent.p` for each pair.
    Columns(Vec<(String, String)>),
    /// Through a junction table: `child JOIN j ON j.jc = child.c` and
    /// `j.jp = parent.p`.
    Junction {
        table: QualifiedName,
        alias: usize,
        child: Vec<(String, String)>,
        parent: Vec<(String, String)>,
    },
    /// The source itself is bound to the parent (computed relationship).
    None,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Embed {
    /// JSON key in the parent.
    pub name: String,
    pub node: ReadNode,
    pub join: JoinType,
    pub to_one: bool,
    pub spread: bool,
    pub link: Link,
    /// Alias of the lateral subquery in the parent.
    pub lateral: usize,
    /// The table or view the embedded rows come from.
    pub target: QualifiedName,
}

/// One SELECT: the root, or an embedded resource.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadNode {
    pub source: Source,
    pub alias: usize,
    /// All columns the source has (for `*` expansion and output names).
    pub columns: Vec<String>,
    pub projections: Vec<Projection>,
    pub conditions: Vec<Cond>,
    pub order: Vec<OrderExpr>,
    pub range: Range,
    pub embeds: Vec<Embed>,
    /// Expressions the parent orders by (`order=embed(col)`): selected as
    /// `pgrst_order_<i>` beside the output, never part of it.
    pub hidden: Vec<Expr>,
}

impl ReadNode {
    pub fn has_aggregates(&self) -> bool {
        self.projections
            .iter()
            .any(|p| matches!(p, Projection::Aggregate { .. }))
    }

    /// Aggregates here or in a to-one spread, whose aggregates this node
    /// applies.
    pub fn has_aggregates_with_spreads(&self) -> bool {
        self.has_aggregates()
            || self
                .embeds
                .iter()
                .any(|e| e.spread && e.to_one && e.node.has_aggregates_with_spreads())
    }

    /// Output keys in order (CSV header, spread).
    pub fn output_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for p in &self.projections {
            match p {
                Projection::Star => out.extend(self.columns.iter().cloned()),
                Projection::Column { name, .. } | Projection::Aggregate { name, .. } => {
                    out.push(name.clone())
                }
                Projection::Embed(i) => {
                    let e = &self.embeds[*i];
                    // An embed that only filters (`select=a,b()`) outputs nothing.
                    if e.node.projections.is_empty() {
                        continue;
                    }
                    if e.spread {
                        out.extend(e.node.output_names());
                    } else {
                        out.push(e.name.clone());
                    }
                }
            }
        }
        out
    }
}

/// Arguments of a function call.
#[derive(Debug, Clone, PartialEq)]
pub enum Args {
    /// POST: `json_to_record($body)` with these (name, type, variadic).
    Json {
        body: String,
        params: Vec<(String, TypeRef, bool)>,
    },
    /// The whole body as the one json/jsonb argument.
    Single { body: String, ty: TypeRef },
    /// GET: text values cast to the parameter types.
    Text(Vec<(String, TypeRef, bool, String)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub function: QualifiedName,
    pub args: Args,
    /// The function's media type handler answers (its media type, lower
    /// case, and whether the value is `bytea`): the raw value is the body.
    pub handler: Option<(String, bool)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CallResult {
    Void,
    /// One value (`set`: a JSON array of values).
    Scalar {
        set: bool,
    },
    /// Rows read through a node (`set == false`: one object).
    Rows {
        node: ReadNode,
        set: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Mutation {
    Insert {
        table: QualifiedName,
        columns: Vec<InsertColumn>,
        body: String,
        on_conflict: Option<(Vec<String>, Resolution)>,
        /// PUT: the primary key values of the URL (column, value, type);
        /// only a payload row with these values is written.
        put_key: Vec<(String, String, TypeRef)>,
    },
    Update {
        table: QualifiedName,
        alias: usize,
        columns: Vec<String>,
        /// With `missing=default`: each written column's default
        /// expression, evaluated once (`sql/payload.rs`) for absent keys.
        defaults: Vec<(String, String)>,
        body: String,
        conditions: Vec<Cond>,
        limited: Option<Limited>,
    },
    Delete {
        table: QualifiedName,
        alias: usize,
        conditions: Vec<Cond>,
        limited: Option<Limited>,
    },
}

/// `limit`/`offset` (with the `order` PostgREST requires) on PATCH/DELETE:
/// only the rows of that page of the filtered, ordered table are written.
#[derive(Debug, Clone, PartialEq)]
pub struct Limited {
    pub order: Vec<OrderExpr>,
    pub range: Range,
    /// The columns that identify a row: the primary key, or empty for the
    /// physical row identity (`tableoid`, `ctid`).
    pub key: Vec<String>,
    /// A view without a key has no row identity: its rows are picked by
    /// the `order` columns (as PostgREST did while it had limited writes),
    /// which may match more rows than the limit; execution then refuses
    /// the write with PGRST110.
    pub by_order: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct InsertColumn {
    pub name: String,
    /// With `missing=default`: the column's default expression, evaluated
    /// for every row (see `sql/payload.rs`), used when a row lacks the key.
    pub default: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Read {
        node: ReadNode,
    },
    Mutate {
        mutation: Mutation,
        /// What to return (representation or headers-only); `None`: minimal.
        returning: Option<ReadNode>,
    },
    Call {
        call: Call,
        result: CallResult,
    },
    OpenApi,
    Options,
}

/// The plan of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub action: Action,
    pub schema: String,
    pub method: Method,
    pub media: MediaType,
    pub strip_nulls: bool,
    pub prefer: Preferences,
    pub count: Option<CountPref>,
    pub read_only: bool,
    /// Primary key of the table written (for `Location`).
    pub location_key: Vec<String>,
    pub table_name: Option<String>,
    pub tx_rollback: bool,
    pub preference_applied: Vec<String>,
    pub profile_given: bool,
    /// `Prefer: timezone=` naming a zone the server knows: set as the
    /// transaction's `timezone`.
    pub timezone: Option<String>,
    /// How the statement names each relation (PostgREST's names).
    pub aliases: alias::Aliases,
}

/// Stage entry point.
pub fn plan(req: &ApiRequest, cache: &SchemaCache, config: &RestConfig) -> Result<Plan, ApiError> {
    let schema = match &req.profile {
        Some(p) if !config.db_schemas.iter().any(|s| s == p) => {
            return Err(ApiError::bad_schema(p, &config.db_schemas));
        }
        Some(p) => p.clone(),
        None => config
            .db_schemas
            .first()
            .cloned()
            .unwrap_or_else(|| "public".to_owned()),
    };
    let mut p = Planner {
        cache,
        config,
        schema: &schema,
        aliases: Default::default(),
    };
    let mut read_only = req.method.is_read();
    let mut location_key = Vec::new();
    let mut table_name = None;
    let action = match (&req.target, req.method) {
        (_, Method::Options) => Action::Options,
        (Target::Root, Method::Get | Method::Head) => Action::OpenApi,
        (Target::Root, _) => {
            return Err(ApiError::method(
                "Only GET and HEAD are allowed on the root",
            ));
        }
        (Target::Table(name), method) => {
            let table = cache
                .table(&schema, name)
                .ok_or_else(|| table_not_found(cache, &schema, name))?;
            table_name = Some(table.name.name.clone());
            location_key = table.primary_key.clone();
            if let Some(e) = &req.media_error {
                return Err(e.clone());
            }
            // GeoJSON needs PostGIS and a selected geometry to make features
            // of. PostgREST builds the statement anyway and passes
            // PostgreSQL's 42883 (no PostGIS, 404) or PostGIS's 22023
            // ("geometry column is missing", 400) through; issue 16 asks
            // for 406 PGRST107, which says what is wrong before any SQL.
            if *req.media.representation() == MediaType::GeoJson
                && !(cache.geojson && selects_spatial(&req.select, table))
            {
                return Err(MediaType::none_available(&req.accept));
            }
            match method {
                Method::Get | Method::Head => Action::Read {
                    node: p.root_node(
                        req,
                        Source::Table(table.name.clone()),
                        table_columns(table),
                        Some(table),
                    )?,
                },
                Method::Post => p.insert(req, table)?,
                Method::Put => p.insert(req, table)?,
                Method::Patch => p.update(req, table)?,
                Method::Delete => p.delete(req, table)?,
                Method::Options => Action::Options,
            }
        }
        (Target::Rpc(name), method) => {
            let (action, volatile) = p.call(req, name)?;
            if method.is_read() && volatile {
                // Run it read-only: Postgres refuses writes (25006 -> 405).
                read_only = true;
            }
            if !method.is_read() {
                read_only = false;
            }
            action
        }
    };
    if matches!(req.media, MediaType::Plan { .. }) && !config.plan_enabled {
        return Err(ApiError::not_acceptable("application/vnd.pgrst.plan"));
    }

    // `Preference-Applied`: what was honoured, in PostgREST's order
    // (Preferences.hs `prefAppliedHeader`: resolution, missing, return,
    // count, tx, handling, timezone, max-affected) and for the requests
    // PostgREST applies each to (Response.hs `responsePreferences`).
    let mut preference_applied = Vec::new();
    let table_write = matches!(req.target, Target::Table(_)) && !req.method.is_read();
    let tx_allowed = config.tx_end.ends_with("allow-override");
    let default_rollback = config.tx_end.starts_with("rollback");
    let tx_rollback = match req.prefer.tx_rollback {
        Some(r) if tx_allowed => r,
        _ => default_rollback,
    };
    if table_write && req.method == Method::Post {
        // Only when there is something to resolve conflicts on.
        let has_key = !location_key.is_empty() || req.on_conflict.is_some();
        if let (Some(r), true) = (req.prefer.resolution, has_key) {
            preference_applied.push(match r {
                Resolution::MergeDuplicates => "resolution=merge-duplicates".into(),
                Resolution::IgnoreDuplicates => "resolution=ignore-duplicates".into(),
            });
        }
    }
    if table_write && req.prefer.missing_given && matches!(req.method, Method::Post | Method::Patch)
    {
        preference_applied.push(
            if req.prefer.missing_default {
                "missing=default"
            } else {
                "missing=null"
            }
            .into(),
        );
    }
    if table_write && let Some(r) = req.prefer.return_ {
        preference_applied.push(format!(
            "return={}",
            match r {
                ReturnPref::Minimal => "minimal",
                ReturnPref::HeadersOnly => "headers-only",
                ReturnPref::Representation => "representation",
            }
        ));
    }
    if let Some(c) = req.prefer.count {
        preference_applied.push(format!(
            "count={}",
            match c {
                CountPref::Exact => "exact",
                CountPref::Planned => "planned",
                CountPref::Estimated => "estimated",
            }
        ));
    }
    if tx_allowed && let Some(r) = req.prefer.tx_rollback {
        preference_applied.push(format!("tx={}", if r { "rollback" } else { "commit" }));
    }
    if req.prefer.handling_given {
        preference_applied.push(
            if req.prefer.strict {
                "handling=strict"
            } else {
                "handling=lenient"
            }
            .into(),
        );
    }
    // An unknown zone is ignored (and not reported), as PostgREST does.
    let timezone = req
        .prefer
        .timezone
        .clone()
        .filter(|tz| cache.timezones.contains(tz));
    if let Some(tz) = &timezone {
        preference_applied.push(format!("timezone={tz}"));
    }
    let max_affected_applies = matches!(req.target, Target::Rpc(_))
        || (table_write && matches!(req.method, Method::Patch | Method::Delete));
    if req.prefer.strict
        && max_affected_applies
        && let Some(n) = req.prefer.max_affected
    {
        preference_applied.push(format!("max-affected={n}"));
    }

    Ok(Plan {
        aliases: p.aliases,
        action,
        schema,
        method: req.method,
        media: req.media.clone(),
        strip_nulls: req.strip_nulls,
        prefer: req.prefer.clone(),
        count: req.prefer.count,
        read_only,
        location_key,
        table_name,
        tx_rollback,
        preference_applied,
        profile_given: req.profile.is_some(),
        timezone,
    })
}

fn table_columns(table: &Table) -> Vec<(String, TypeRef)> {
    table
        .columns
        .iter()
        .map(|c| (c.name.clone(), c.ty.clone()))
        .collect()
}

/// What a node selects from: for name resolution.
struct Rel {
    qualified: Option<QualifiedName>,
    label: String,
    columns: Vec<(String, TypeRef)>,
}

struct Planner<'a> {
    cache: &'a SchemaCache,
    config: &'a RestConfig,
    schema: &'a str,
    aliases: alias::Aliases,
}

/// Per-node request parts, gathered by embed path.
struct NodeParts<'r> {
    filters: Vec<&'r Filter>,
    logic: Vec<&'r Logic>,
    order: Vec<&'r OrderTerm>,
    range: Option<Range>,
}

fn parts_for<'r>(req: &'r ApiRequest, path: &[String]) -> NodeParts<'r> {
    NodeParts {
        filters: req
            .filters
            .iter()
            .filter(|(p, _)| p.as_slice() == path)
            .map(|(_, f)| f)
            .collect(),
        logic: req
            .logic
            .iter()
            .filter(|(p, _)| p.as_slice() == path)
            .map(|(_, l)| l)
            .collect(),
        order: req
            .order
            .iter()
            .filter(|(p, _)| p.as_slice() == path)
            .flat_map(|(_, t)| t.iter())
            .collect(),
        range: req
            .ranges
            .iter()
            .find(|(p, _)| p.as_slice() == path)
            .map(|(_, r)| *r),
    }
}

impl<'a> Planner<'a> {
    /// Checks that every embed path named by filters, order and ranges exists.
    fn check_paths(&self, req: &ApiRequest, node: &ReadNode) -> Result<(), ApiError> {
        let paths = req
            .filters
            .iter()
            .map(|(p, _)| p)
            .chain(req.logic.iter().map(|(p, _)| p))
            .chain(req.order.iter().map(|(p, _)| p))
            .chain(req.ranges.iter().map(|(p, _)| p));
        for path in paths {
            let mut current = node;
            for seg in path {
                match current.embeds.iter().find(|e| &e.name == seg) {
                    Some(e) => current = &e.node,
                    None => {
                        return Err(ApiError::new(
                            StatusCode::BAD_REQUEST,
                            "PGRST108",
                            format!("'{seg}' is not an embedded resource in this request"),
                        )
                        .hint(format!(
                            "Verify that '{seg}' is included in the 'select' query parameter."
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    fn root_node(
        &mut self,
        req: &ApiRequest,
        source: Source,
        columns: Vec<(String, TypeRef)>,
        table: Option<&'a Table>,
    ) -> Result<ReadNode, ApiError> {
        let rel = Rel {
            qualified: table.map(|t| t.name.clone()),
            label: table
                .map(|t| t.name.name.clone())
                .unwrap_or_else(|| match &req.target {
                    Target::Rpc(n) | Target::Table(n) => n.clone(),
                    Target::Root => String::new(),
                }),
            columns,
        };
        let alias = self.aliases.root(&source, &rel.label);
        let node = self.node(req, &[], source, alias, &rel, &req.select, true)?;
        self.check_paths(req, &node)?;
        Ok(node)
    }

    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        req: &ApiRequest,
        path: &[String],
        source: Source,
        alias: usize,
        rel: &Rel,
        select: &[SelectItem],
        is_root: bool,
    ) -> Result<ReadNode, ApiError> {
        let mut node = ReadNode {
            source,
            alias,
            columns: rel.columns.iter().map(|(n, _)| n.clone()).collect(),
            projections: Vec::new(),
            conditions: Vec::new(),
            order: Vec::new(),
            range: Range::default(),
            embeds: Vec::new(),
            hidden: Vec::new(),
        };
        let select: Vec<SelectItem> = if select.is_empty() && !is_root {
            Vec::new()
        } else if select.is_empty() {
            vec![SelectItem::Star]
        } else {
            select.to_vec()
        };
        for item in &select {
            match item {
                SelectItem::Star => node.projections.push(Projection::Star),
                SelectItem::Field {
                    field,
                    alias: a,
                    cast,
                    aggregate,
                    aggregate_cast,
                } => {
                    let expr = match self.expr(rel, alias, field) {
                        // PostgREST's legacy `count` (no parentheses): it
                        // selects `"t"."count"`, which PostgreSQL reads as
                        // `count("t")`, an aggregate over the rows, with no
                        // automatic GROUP BY (and allowed while aggregates
                        // are disabled).
                        Err(_)
                            if aggregate.is_none()
                                && field.name == "count"
                                && field.json_path.is_empty() =>
                        {
                            Expr {
                                alias,
                                column: "count".into(),
                                computed: Some(QualifiedName::new("pg_catalog", "count")),
                                json_path: Vec::new(),
                                ty: TypeRef::builtin("int8"),
                                json_is_jsonb: false,
                            }
                        }
                        other => other?,
                    };
                    let name = a.clone().unwrap_or_else(|| match aggregate {
                        Some(f) => f.sql().to_owned(),
                        None => field.output_name(),
                    });
                    match aggregate {
                        Some(func) => {
                            self.check_aggregates()?;
                            node.projections.push(Projection::Aggregate {
                                func: *func,
                                expr: Some(expr),
                                arg_cast: cast.clone(),
                                cast: aggregate_cast.clone(),
                                name,
                            })
                        }
                        None => node.projections.push(Projection::Column {
                            expr,
                            cast: cast.clone(),
                            name,
                        }),
                    }
                }
                SelectItem::Count { alias: a, cast } => {
                    self.check_aggregates()?;
                    node.projections.push(Projection::Aggregate {
                        func: AggregateFn::Count,
                        expr: None,
                        arg_cast: None,
                        cast: cast.clone(),
                        name: a.clone().unwrap_or_else(|| "count".into()),
                    });
                }
                SelectItem::Embed {
                    relation,
                    alias: a,
                    hint,
                    join,
                    spread,
                    select,
                } => {
                    let name = a.clone().unwrap_or_else(|| relation.clone());
                    let mut child_path = path.to_vec();
                    child_path.push(name.clone());
                    let embed = self.embed(
                        req,
                        &child_path,
                        rel,
                        alias,
                        relation,
                        hint.as_deref(),
                        *join,
                        *spread,
                        name,
                        select,
                    )?;
                    node.embeds.push(embed);
                    node.projections
                        .push(Projection::Embed(node.embeds.len() - 1));
                }
            }
        }

        let parts = parts_for(req, path);
        for f in parts.filters {
            // `embed=is.null`: a condition on the embedded resource.
            if f.field.json_path.is_empty()
                && rel.columns.iter().all(|(c, _)| *c != f.field.name)
                && let Some(i) = node.embeds.iter().position(|e| e.name == f.field.name)
            {
                let present = match (&f.operation, f.negate) {
                    (Operation::Is(IsValue::Null), negate) => negate,
                    (Operation::Is(IsValue::NotNull), negate) => !negate,
                    _ => {
                        return Err(ApiError::parse(
                            "filter",
                            &f.field.name,
                            "only is.null and not.is.null apply to an embedded resource",
                        ));
                    }
                };
                node.conditions
                    .push(Cond::EmbedPresent { embed: i, present });
                continue;
            }
            node.conditions.push(self.filter(rel, alias, f)?);
        }
        for l in parts.logic {
            node.conditions.push(self.logic(rel, alias, l)?);
        }
        for t in parts.order {
            let target = match &t.relation {
                None => OrderTarget::Expr(self.expr(rel, alias, &t.field)?),
                Some(relation) => self.related_order(&mut node, &rel.label, relation, &t.field)?,
            };
            node.order.push(OrderExpr {
                target,
                desc: t.desc,
                nulls: t.nulls,
            });
        }
        node.range = parts.range.unwrap_or_default();
        if is_root && let Some(max) = self.config.max_rows {
            node.range.limit = Some(node.range.limit.map_or(max, |l| l.min(max)));
        }
        Ok(node)
    }

    /// `order=author(name)`: `author` must be an embed of this node that
    /// yields at most one row (PGRST108 / PGRST118 otherwise); its column is
    /// selected as a hidden expression of the embed.
    fn related_order(
        &self,
        node: &mut ReadNode,
        parent_label: &str,
        relation: &str,
        field: &Field,
    ) -> Result<OrderTarget, ApiError> {
        let Some(embed) = node.embeds.iter_mut().find(|e| e.name == relation) else {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "PGRST108",
                format!("'{relation}' is not an embedded resource in this request"),
            )
            .hint(format!(
                "Verify that '{relation}' is included in the 'select' query parameter."
            )));
        };
        if !embed.to_one {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "PGRST118",
                format!("A related order on '{relation}' is not possible"),
            )
            .details(format!(
                "'{parent_label}' and '{relation}' do not form a many-to-one or one-to-one relationship"
            )));
        }
        let table = self
            .cache
            .tables
            .get(&embed.target)
            .ok_or_else(|| no_relationship(parent_label, relation, self.schema))?;
        let rel = Rel {
            qualified: Some(table.name.clone()),
            label: table.name.name.clone(),
            columns: table_columns(table),
        };
        let mut expr = self.expr(&rel, embed.lateral, field)?; // errors name the join
        expr.alias = embed.node.alias;
        embed.node.hidden.push(expr);
        Ok(OrderTarget::Related {
            lateral: embed.lateral,
            index: embed.node.hidden.len() - 1,
        })
    }

    fn check_aggregates(&self) -> Result<(), ApiError> {
        if self.config.aggregates_enabled {
            Ok(())
        } else {
            Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "PGRST123",
                "Use of aggregate functions is not allowed",
            ))
        }
    }

    fn expr(&self, rel: &Rel, alias: usize, field: &Field) -> Result<Expr, ApiError> {
        let shown = self.aliases.shown(alias);
        let (column, computed, base_ty) = match rel.columns.iter().find(|(c, _)| *c == field.name) {
            Some((c, ty)) => (c.clone(), None, ty.clone()),
            None => {
                let computed = rel
                    .qualified
                    .as_ref()
                    .and_then(|q| self.cache.computed(q, &field.name))
                    .filter(|f| !f.returns_set);
                match computed.map(|f| (f, &f.returns)) {
                    Some((f, Returns::Scalar(ty))) => {
                        (field.name.clone(), Some(f.name.clone()), ty.clone())
                    }
                    _ => return Err(ApiError::undefined_column(shown, &field.name)),
                }
            }
        };
        let json_is_jsonb = base_ty.name == "jsonb";
        let ty = match field.json_path.last() {
            None => base_ty,
            Some(step) if step.text => TypeRef::builtin("text"),
            Some(_) if json_is_jsonb => TypeRef::builtin("jsonb"),
            Some(_) => TypeRef::builtin("json"),
        };
        Ok(Expr {
            alias,
            column,
            computed,
            json_path: field.json_path.clone(),
            ty,
            json_is_jsonb,
        })
    }

    fn filter(&self, rel: &Rel, alias: usize, f: &Filter) -> Result<Cond, ApiError> {
        let expr = self.expr(rel, alias, &f.field)?;
        let op = match &f.operation {
            Operation::Op { op, value } => CondOp::Op {
                op: *op,
                value: value.clone(),
            },
            Operation::Quant { op, quant, values } => CondOp::Quant {
                op: *op,
                quant: *quant,
                values: values.clone(),
            },
            Operation::In(values) => CondOp::In(values.clone()),
            Operation::Is(v) => CondOp::Is(*v),
            Operation::Fts {
                kind,
                config,
                value,
            } => CondOp::Fts {
                kind: *kind,
                config: config.clone(),
                value: value.clone(),
            },
        };
        Ok(Cond::Filter {
            expr,
            negate: f.negate,
            op,
        })
    }

    fn logic(&self, rel: &Rel, alias: usize, l: &Logic) -> Result<Cond, ApiError> {
        match l {
            Logic::Filter(f) => self.filter(rel, alias, f),
            Logic::Group {
                or,
                negate,
                children,
            } => Ok(Cond::Group {
                or: *or,
                negate: *negate,
                children: children
                    .iter()
                    .map(|c| self.logic(rel, alias, c))
                    .collect::<Result<_, _>>()?,
            }),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn embed(
        &mut self,
        req: &ApiRequest,
        path: &[String],
        parent: &Rel,
        parent_alias: usize,
        relation: &str,
        hint: Option<&str>,
        join: JoinType,
        spread: bool,
        name: String,
        select: &[SelectItem],
    ) -> Result<Embed, ApiError> {
        let parent_q = parent
            .qualified
            .clone()
            .ok_or_else(|| no_relationship(&parent.label, relation, self.schema))?;
        let (source, link, target, to_one) = match self.relationship(&parent_q, relation, hint)? {
            Found::ManyToOne(fk) => (
                Source::Table(fk.ref_table.clone()),
                Link::Columns(
                    fk.ref_columns
                        .iter()
                        .cloned()
                        .zip(fk.columns.iter().cloned())
                        .collect(),
                ),
                fk.ref_table.clone(),
                true,
            ),
            Found::OneToMany(fk) => (
                Source::Table(fk.table.clone()),
                Link::Columns(
                    fk.columns
                        .iter()
                        .cloned()
                        .zip(fk.ref_columns.iter().cloned())
                        .collect(),
                ),
                fk.table.clone(),
                // One-to-one seen from the referenced side: an object too.
                fk.one_to_one,
            ),
            Found::ManyToMany {
                junction,
                to_parent,
                to_child,
            } => {
                let j = self.aliases.junction(junction, path);
                (
                    Source::Table(to_child.ref_table.clone()),
                    Link::Junction {
                        table: junction.clone(),
                        alias: j,
                        child: to_child
                            .columns
                            .iter()
                            .cloned()
                            .zip(to_child.ref_columns.iter().cloned())
                            .collect(),
                        parent: to_parent
                            .columns
                            .iter()
                            .cloned()
                            .zip(to_parent.ref_columns.iter().cloned())
                            .collect(),
                    },
                    to_child.ref_table.clone(),
                    false,
                )
            }
            Found::Computed(f) => {
                let Returns::Rows {
                    relation: Some(rel),
                    ..
                } = &f.returns
                else {
                    return Err(no_relationship(&parent.label, relation, self.schema));
                };
                (
                    Source::Computed {
                        function: f.name.clone(),
                        parent: parent_alias,
                    },
                    Link::None,
                    rel.clone(),
                    f.is_to_one(),
                )
            }
        };
        let table = self
            .cache
            .tables
            .get(&target)
            .ok_or_else(|| no_relationship(&parent.label, relation, self.schema))?;
        let rel = Rel {
            qualified: Some(table.name.clone()),
            label: table.name.name.clone(),
            columns: table_columns(table),
        };
        let child_alias = self.aliases.embedded(&target, &link, path);
        let node = self.node(req, path, source, child_alias, &rel, select, false)?;
        if spread && !to_one && node.has_aggregates_with_spreads() {
            // PostgREST Plan.hs (addToManyOrderSelects), PGRST127.
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "PGRST127",
                "Feature not implemented",
            )
            .details("Aggregates are not implemented for one-to-many or many-to-many spreads."));
        }
        Ok(Embed {
            name,
            node,
            join,
            to_one,
            spread,
            link,
            lateral: self.aliases.lateral(&parent_q.name, path),
            target,
        })
    }

    /// The one relationship `name` (with `hint`) names from `parent`, by
    /// PostgREST's rules (Plan.hs `findRel`): a foreign table's name, or
    /// without a hint a constraint or single-column name (not towards a
    /// view); a hint names a constraint, a column of either side or a
    /// junction. Self-references: `table` is the one-to-many side, a
    /// column the many-to-one side, and a hint picks the one-to-many by
    /// the referencing column. A computed relationship named like a table
    /// replaces the foreign keys to it.
    fn relationship(
        &self,
        parent: &QualifiedName,
        name: &str,
        hint: Option<&str>,
    ) -> Result<Found<'a>, ApiError> {
        let cache = self.cache;
        let schema = parent.schema.as_str();
        let mut candidates: Vec<Found<'a>> = Vec::new();
        for fk in &cache.foreign_keys {
            if fk.table == *parent && fk.ref_table.schema == schema {
                candidates.push(Found::ManyToOne(fk));
            }
            if fk.ref_table == *parent && fk.table.schema == schema {
                candidates.push(Found::OneToMany(fk));
            }
        }
        // Many-to-many through a junction whose primary key holds the
        // columns of two many-to-one keys.
        for to_parent in cache
            .foreign_keys
            .iter()
            .filter(|fk| fk.ref_table == *parent && !fk.one_to_one)
        {
            let Some(junction) = cache.tables.get(&to_parent.table) else {
                continue;
            };
            for to_child in cache.foreign_keys.iter().filter(|fk| {
                fk.table == to_parent.table
                    && fk.name != to_parent.name
                    && !fk.one_to_one
                    && fk.ref_table.schema == schema
            }) {
                let in_pk = to_parent
                    .columns
                    .iter()
                    .chain(&to_child.columns)
                    .all(|c| junction.primary_key.contains(c));
                if in_pk {
                    candidates.push(Found::ManyToMany {
                        junction: &junction.name,
                        to_parent,
                        to_child,
                    });
                }
            }
        }
        let computed = cache.computed(parent, name).filter(|f| {
            matches!(
                &f.returns,
                Returns::Rows {
                    relation: Some(r),
                    ..
                } if r.schema == schema
            )
        });
        if let Some(f) = computed {
            candidates.retain(|c| c.foreign_table() != &f.name);
            candidates.push(Found::Computed(f));
        }
        let is_view = |q: &QualifiedName| {
            cache
                .tables
                .get(q)
                .is_some_and(|t| matches!(t.kind, TableKind::View | TableKind::MaterializedView))
        };
        let single = |cols: &[String], c: &str| cols.len() == 1 && cols[0] == c;
        let mut found: Vec<Found<'a>> = candidates
            .into_iter()
            .filter(|f| {
                if let Found::Computed(func) = f {
                    return func.name.name == name;
                }
                let ft = f.foreign_table();
                let (origin, foreign) = f.columns();
                let constraint = f.constraint();
                let (o2m, m2o) = match f {
                    Found::OneToMany(fk) => (!fk.one_to_one, false),
                    Found::ManyToOne(fk) => (false, !fk.one_to_one),
                    _ => (false, false),
                };
                if f.is_self(parent) {
                    match hint {
                        None => ft.name == name && o2m || single(origin, name) && m2o,
                        Some(h) => ft.name == name && o2m && single(foreign, h),
                    }
                } else {
                    match hint {
                        None => {
                            ft.name == name
                                || constraint == Some(name) && !is_view(ft)
                                || single(origin, name) && !is_view(ft)
                        }
                        Some(h) => {
                            ft.name == name
                                && (constraint == Some(h)
                                    || single(origin, h)
                                    || single(foreign, h)
                                    || matches!(f, Found::ManyToMany { junction, .. } if junction.name == h))
                        }
                    }
                }
            })
            .collect();
        match found.len() {
            0 => Err(no_relationship_hint(&parent.name, name, hint, schema)
                .hint(relationship_fuzzy_hint(cache, parent, name))),
            1 => Ok(found.remove(0)),
            _ => {
                found.sort_by_key(|f| f.sort_key(parent));
                let details: Vec<Value> = found.iter().map(|f| f.describe(parent)).collect();
                let options: Vec<String> = found
                    .iter()
                    .map(|f| match f {
                        Found::Computed(_) => String::new(),
                        _ => format!("'{}!{}'", f.foreign_table().name, f.hint_name()),
                    })
                    .collect();
                Err(ApiError::new(
                    StatusCode::MULTIPLE_CHOICES,
                    "PGRST201",
                    format!(
                        "Could not embed because more than one relationship was found for '{}' and '{name}'",
                        parent.name
                    ),
                )
                .details(Value::Array(details))
                .hint(format!(
                    "Try changing '{name}' to one of the following: {}. Find the desired relationship in the 'details' key.",
                    options.join(", ")
                )))
            }
        }
    }

    fn insert(&mut self, req: &ApiRequest, table: &'a Table) -> Result<Action, ApiError> {
        // PUT: checked first, as PostgREST does (ApiRequest.hs, Plan.hs).
        let put = req.method == Method::Put;
        let mut put_key = Vec::new();
        if put {
            // PUT: one row, named in the URL by all and only its primary
            // key with `eq` (PGRST105), no limit (PGRST114).
            if req
                .ranges
                .iter()
                .any(|(p, r)| p.is_empty() && (r.limit.is_some() || r.offset > 0))
            {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "PGRST114",
                    "limit/offset querystring parameters are not allowed for PUT",
                ));
            }
            let invalid = || {
                ApiError::new(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "PGRST105",
                    "Filters must include all and only primary key columns with 'eq' operators",
                )
            };
            if table.primary_key.is_empty() || !req.logic.is_empty() {
                return Err(invalid());
            }
            for (path, f) in &req.filters {
                if !path.is_empty() {
                    continue;
                }
                let col = f.field.name.clone();
                match &f.operation {
                    Operation::Op {
                        op: Operator::Eq,
                        value,
                    } if !f.negate
                        && f.field.json_path.is_empty()
                        && table.primary_key.contains(&col) =>
                    {
                        let ty = table
                            .column(&col)
                            .map(|c| c.ty.clone())
                            .ok_or_else(invalid)?;
                        put_key.push((col, value.clone(), ty));
                    }
                    _ => return Err(invalid()),
                }
            }
            let named: std::collections::BTreeSet<&String> =
                put_key.iter().map(|(c, _, _)| c).collect();
            if named.len() != table.primary_key.len() {
                return Err(invalid());
            }
        }
        let body = req
            .body
            .clone()
            .unwrap_or(Value::Object(Default::default()));
        let rows: Vec<&serde_json::Map<String, Value>> = match &body {
            Value::Object(o) => vec![o],
            Value::Array(items) => match items.iter().map(Value::as_object).collect() {
                Some(rows) => rows,
                None if req.columns.is_none() => return Err(ApiError::keys_must_match()),
                None => {
                    return Err(ApiError::bad_body(
                        "All array elements must be JSON objects",
                    ));
                }
            },
            // Any other JSON value is an empty array to PostgREST
            // (Payload.hs `payloadAttributes`): nothing is inserted.
            _ => Vec::new(),
        };
        let mut names: Vec<String> = match &req.columns {
            Some(cols) => cols.clone(),
            None => {
                // Without `columns=`, every object must have the same keys
                // (PostgREST ApiRequest/Payload.hs); absent keys are then
                // only possible with `columns=`.
                let first: Vec<String> = rows
                    .first()
                    .map(|r| r.keys().cloned().collect())
                    .unwrap_or_default();
                let uniform = rows
                    .iter()
                    .all(|r| r.len() == first.len() && first.iter().all(|k| r.contains_key(k)));
                if !uniform {
                    return Err(ApiError::keys_must_match());
                }
                first
            }
        };
        names.dedup();
        // PUT ignores `missing=` (PostgREST Plan.hs, MutationSingleUpsert).
        let missing_default = req.prefer.missing_default && !put;
        let mut columns = Vec::new();
        for n in &names {
            let col = table
                .column(n)
                .ok_or_else(|| ApiError::no_column(n, &table.name.name))?;
            let default = if missing_default {
                col.default.clone()
            } else {
                None
            };
            columns.push(InsertColumn {
                name: n.clone(),
                default,
            });
        }
        let resolution = if put {
            Some(Resolution::MergeDuplicates)
        } else {
            req.prefer.resolution
        };
        // Conflicts are resolved on `on_conflict` or the primary key; with
        // neither, the preference is ignored and this is a plain insert
        // (PostgREST QueryBuilder.hs: no ON CONFLICT for no columns).
        let on_conflict = match resolution {
            Some(res) => {
                let cols = match &req.on_conflict {
                    Some(c) => c.clone(),
                    None => table.primary_key.clone(),
                };
                for c in &cols {
                    if table.column(c).is_none() {
                        return Err(ApiError::undefined_column(&table.name.name, c));
                    }
                }
                (!cols.is_empty()).then_some((cols, res))
            }
            None => None,
        };
        let body = match body {
            Value::Array(_) => body,
            Value::Object(_) => Value::Array(vec![body]),
            _ => Value::Array(Vec::new()),
        };
        let mutation = Mutation::Insert {
            table: table.name.clone(),
            columns,
            body: body.to_string(),
            on_conflict,
            put_key,
        };
        let returning = self.returning(req, table)?;
        Ok(Action::Mutate {
            mutation,
            returning,
        })
    }

    fn update(&mut self, req: &ApiRequest, table: &'a Table) -> Result<Action, ApiError> {
        let body = match &req.body {
            Some(Value::Object(o)) => o.clone(),
            None => Default::default(),
            Some(_) => return Err(ApiError::bad_body("Expected a JSON object")),
        };
        // `columns=` names the columns written, present in the body or not
        // (absent: NULL, or the default with `missing=default`); without
        // it, the body's keys.
        let mut columns = Vec::new();
        let mut defaults = Vec::new();
        let names: Vec<String> = match &req.columns {
            Some(cols) => cols.clone(),
            None => body.keys().cloned().collect(),
        };
        for k in &names {
            let Some(col) = table.column(k) else {
                return Err(ApiError::no_column(k, &table.name.name));
            };
            if columns.contains(k) {
                continue;
            }
            if let (true, Some(default)) = (req.prefer.missing_default, &col.default) {
                defaults.push((k.clone(), default.clone()));
            }
            columns.push(k.clone());
        }
        let alias = self.aliases.written(&table.name);
        let conditions = self.mutation_conditions(req, table, alias)?;
        let limited = self.limited(req, table, alias)?;
        let returning = self.returning(req, table)?;
        Ok(Action::Mutate {
            mutation: Mutation::Update {
                table: table.name.clone(),
                alias,
                columns,
                defaults,
                body: Value::Object(body).to_string(),
                conditions,
                limited,
            },
            returning,
        })
    }

    fn delete(&mut self, req: &ApiRequest, table: &'a Table) -> Result<Action, ApiError> {
        let alias = self.aliases.written(&table.name);
        let conditions = self.mutation_conditions(req, table, alias)?;
        let limited = self.limited(req, table, alias)?;
        let returning = self.returning(req, table)?;
        Ok(Action::Mutate {
            mutation: Mutation::Delete {
                table: table.name.clone(),
                alias,
                conditions,
                limited,
            },
            returning,
        })
    }

    /// `limit`/`offset` on PATCH/DELETE. As in PostgREST, a limit needs an
    /// explicit `order` (PGRST109); an `order` alone changes nothing.
    fn limited(
        &self,
        req: &ApiRequest,
        table: &'a Table,
        alias: usize,
    ) -> Result<Option<Limited>, ApiError> {
        let parts = parts_for(req, &[]);
        let Some(range) = parts.range.filter(|r| r.limit.is_some() || r.offset > 0) else {
            return Ok(None);
        };
        if parts.order.is_empty() {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "PGRST109",
                "A 'limit' was applied without an explicit 'order'",
            )
            .hint("Apply an 'order' using unique column(s)"));
        }
        let rel = Rel {
            qualified: Some(table.name.clone()),
            label: table.name.name.clone(),
            columns: table_columns(table),
        };
        let mut order = Vec::new();
        for t in &parts.order {
            if let Some(relation) = &t.relation {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "PGRST108",
                    format!("'{relation}' is not an embedded resource in this request"),
                ));
            }
            order.push(OrderExpr {
                target: OrderTarget::Expr(self.expr(&rel, alias, &t.field)?),
                desc: t.desc,
                nulls: t.nulls,
            });
        }
        let by_order = table.primary_key.is_empty()
            && matches!(
                table.kind,
                TableKind::View | TableKind::MaterializedView | TableKind::Foreign
            );
        let key = if by_order {
            let mut names: Vec<String> = Vec::new();
            for t in &parts.order {
                if !names.contains(&t.field.name) {
                    names.push(t.field.name.clone());
                }
            }
            names
        } else {
            table.primary_key.clone()
        };
        Ok(Some(Limited {
            order,
            range,
            key,
            by_order,
        }))
    }

    fn mutation_conditions(
        &self,
        req: &ApiRequest,
        table: &'a Table,
        alias: usize,
    ) -> Result<Vec<Cond>, ApiError> {
        let rel = Rel {
            qualified: Some(table.name.clone()),
            label: table.name.name.clone(),
            columns: table_columns(table),
        };
        let parts = parts_for(req, &[]);
        let mut conds = Vec::new();
        for f in parts.filters {
            conds.push(self.filter(&rel, alias, f)?);
        }
        for l in parts.logic {
            conds.push(self.logic(&rel, alias, l)?);
        }
        if let Some((p, _)) = req.filters.iter().find(|(p, _)| !p.is_empty()) {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "PGRST108",
                format!(
                    "'{}' is not an embedded resource in this request",
                    p.join(".")
                ),
            ));
        }
        Ok(conds)
    }

    /// The read over the mutated rows, when the client wants them.
    fn returning(
        &mut self,
        req: &ApiRequest,
        table: &'a Table,
    ) -> Result<Option<ReadNode>, ApiError> {
        let wants = match req.prefer.return_ {
            Some(ReturnPref::Representation) => true,
            Some(ReturnPref::HeadersOnly) => req.method == Method::Post,
            _ => false,
        };
        let single = req.media == MediaType::SingleObject;
        if !wants && !single {
            return Ok(None);
        }
        let rel = Rel {
            qualified: Some(table.name.clone()),
            label: table.name.name.clone(),
            columns: table_columns(table),
        };
        let alias = self.aliases.root(&Source::Mutated, &table.name.name);
        let select = if req.prefer.return_ == Some(ReturnPref::HeadersOnly) {
            table
                .primary_key
                .iter()
                .map(|c| SelectItem::Field {
                    field: Field::plain(c),
                    alias: None,
                    cast: None,
                    aggregate: None,
                    aggregate_cast: None,
                })
                .collect()
        } else {
            req.select.clone()
        };
        // Filters were applied by the mutation itself; only embeds' own
        // filters and order apply to the representation.
        let mut stripped = req.clone();
        stripped.filters.retain(|(p, _)| !p.is_empty());
        stripped.logic.retain(|(p, _)| !p.is_empty());
        stripped.ranges.retain(|(p, _)| !p.is_empty());
        let mut node = self.node(&stripped, &[], Source::Mutated, alias, &rel, &select, true)?;
        node.range = Range::default();
        Ok(Some(node))
    }

    /// RPC: choose the function and plan its call. Returns whether it is volatile.
    ///
    /// The choice is PostgREST's (Plan.hs `findProc`): the overloads whose
    /// parameters match the argument names exactly (required ones all
    /// given, the rest among the defaulted ones) win; failing those, a POST
    /// falls back to the overload with one unnamed parameter of the body's
    /// type (`json`/`jsonb` for JSON, `text`, `xml`, `bytea` for
    /// `text/plain`, `text/xml`, `application/octet-stream`). Several
    /// winners are 300 PGRST203, none 404 PGRST202.
    fn call(&mut self, req: &ApiRequest, name: &str) -> Result<(Action, bool), ApiError> {
        let is_read = req.method.is_read();
        // Only what PostgREST can call (SchemaCache.hs `callable`): at most
        // one unnamed parameter, and that one of the raw body types.
        let mut candidates: Vec<&Function> = self
            .cache
            .functions(self.schema, name)
            .iter()
            .filter(|f| rpc_callable(f))
            .collect();
        // PostgREST's order of overloads (Routine.hs `Ord`): fewest
        // parameters first, then description, then the parameters.
        candidates.sort_by(|a, b| {
            a.params
                .len()
                .cmp(&b.params.len())
                .then_with(|| a.description.cmp(&b.description))
                .then_with(|| param_keys(a).cmp(&param_keys(b)))
        });
        // GET: a query parameter whose value is not a filter is an
        // argument (QueryParams.hs `NoOpExpr`); the others filter the result.
        let mut get_args: Vec<(String, String)> = Vec::new();
        let mut filter_params: Vec<(String, String)> = Vec::new();
        if is_read {
            for (k, v) in &req.rpc_params {
                if parse_filter_param(k, v).is_ok() {
                    filter_params.push((k.clone(), v.clone()));
                } else {
                    get_args.push((k.clone(), v.clone()));
                }
            }
        } else {
            filter_params.extend(req.rpc_params.iter().cloned());
        }
        let raw_kind = if is_read {
            None
        } else {
            req.raw_body.as_ref().map(|r| r.kind)
        };
        // The JSON body as PostgREST passes it on (Payload.hs
        // `payloadAttributes`): an object, or an array of objects with the
        // same keys; any other value becomes `[]`.
        let mut body_text: Option<String> = None;
        // Argument names on offer.
        let mut keys: BTreeSet<String> = BTreeSet::new();
        if is_read {
            keys.extend(get_args.iter().map(|(k, _)| k.clone()));
        } else if raw_kind.is_none() {
            match &req.body {
                Some(Value::Object(o)) => {
                    keys.extend(o.keys().cloned());
                    body_text = req.body.as_ref().map(Value::to_string);
                }
                Some(Value::Array(items)) => match items.first() {
                    None => body_text = Some("[]".into()),
                    Some(Value::Object(first)) => {
                        let same = items.iter().all(|i| {
                            i.as_object().is_some_and(|o| {
                                o.len() == first.len() && o.keys().all(|k| first.contains_key(k))
                            })
                        });
                        if !same {
                            return Err(ApiError::keys_must_match());
                        }
                        keys.extend(first.keys().cloned());
                        body_text = req.body.as_ref().map(Value::to_string);
                    }
                    Some(_) => {
                        return Err(ApiError::keys_must_match());
                    }
                },
                Some(_) => body_text = Some("[]".into()),
                // An empty body calls with no arguments.
                None => body_text = Some("{}".into()),
            }
            if let Some(columns) = &req.columns {
                keys = columns.iter().cloned().collect();
            }
        }
        let body_media = if is_read {
            None
        } else {
            Some(match raw_kind {
                Some(k) => k.param_type(),
                None => "json",
            })
        };
        let matches_params = |f: &Function| {
            if f.params.is_empty() {
                return keys.is_empty() && raw_kind.is_none();
            }
            let required: BTreeSet<String> = f
                .params
                .iter()
                .filter(|p| !p.has_default)
                .map(|p| p.name.clone())
                .collect();
            let optional: BTreeSet<String> = f
                .params
                .iter()
                .filter(|p| p.has_default)
                .map(|p| p.name.clone())
                .collect();
            keys.difference(&optional).cloned().collect::<BTreeSet<_>>() == required
        };
        let single_unnamed = |f: &Function| match (body_media, f.params.as_slice()) {
            (Some(media), [p]) => {
                let ty_ok = p.ty.schema == "pg_catalog"
                    && (p.ty.name == media || (media == "json" && p.ty.name == "jsonb"));
                // `Prefer: params=single-object` went in PostgREST v12: only
                // an unnamed parameter takes the whole body.
                ty_ok && p.name.is_empty()
            }
            _ => false,
        };
        let mut named: Vec<&Function> = Vec::new();
        let mut fallback: Vec<&Function> = Vec::new();
        for f in &candidates {
            if matches_params(f) {
                named.push(f);
            } else if single_unnamed(f) {
                fallback.push(f);
            }
        }
        let keys_list: Vec<String> = keys.iter().cloned().collect();
        let function = match (named.as_slice(), fallback.as_slice()) {
            ([], []) => {
                return Err(self.no_function(name, &keys_list, raw_kind, is_read, &candidates));
            }
            ([], [f]) | ([f], _) => *f,
            ([], several) | (several, _) => {
                return Err(ApiError::new(
                    StatusCode::MULTIPLE_CHOICES,
                    "PGRST203",
                    format!(
                        "Could not choose the best candidate function between: {}",
                        several
                            .iter()
                            .map(|f| format!(
                                "{}.{}({})",
                                f.name.schema,
                                f.name.name,
                                f.params
                                    .iter()
                                    .map(|p| format!("{} => {}", p.name, p.type_text))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .hint("Try renaming the parameters or the function itself in the database so function overloading can be resolved"));
            }
        };

        // Arguments: one unnamed parameter takes the whole body
        // (CallPlan `OnePosParam`); otherwise the named ones given.
        let single = function.params.len() == 1 && function.params[0].name.is_empty();
        let args = if single && !is_read {
            let ty = function.params[0].ty.clone();
            let body = match &req.raw_body {
                Some(raw) if raw.kind == crate::request::RawKind::Octet => {
                    // Bound as text in bytea's hex input form.
                    format!("\\x{}", plinth_db::hex(&raw.bytes))
                }
                Some(raw) => String::from_utf8(raw.bytes.clone()).map_err(|_| {
                    ApiError::new(
                        StatusCode::BAD_REQUEST,
                        "22021",
                        "invalid byte sequence for encoding \"UTF8\"",
                    )
                })?,
                None => body_text.clone().unwrap_or_else(|| "{}".into()),
            };
            Args::Single { body, ty }
        } else if is_read {
            let mut args = Vec::new();
            for (k, v) in &get_args {
                if let Some(p) = function.params.iter().find(|p| &p.name == k) {
                    args.push((p.name.clone(), p.ty.clone(), p.variadic, v.clone()));
                }
            }
            Args::Text(args)
        } else {
            let params = function
                .params
                .iter()
                .filter(|p| keys.contains(&p.name))
                .map(|p| (p.name.clone(), p.ty.clone(), p.variadic))
                .collect();
            Args::Json {
                body: body_text.clone().unwrap_or_else(|| "{}".into()),
                params,
            }
        };
        // PostgREST's media type handlers (Plan.hs `negotiateContent`): the
        // first type of `Accept` that a built-in handler produces or that
        // the function's return domain names, the latter only with the
        // default `select` (a `*/*` domain is not one: out of scope).
        let mut handler = None;
        if let Some((mime, binary)) = &function.media_handler
            && !req.select_given
        {
            for accepted in &req.accept {
                let essence = accepted
                    .split(';')
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase();
                if essence == *mime {
                    handler = Some((mime.clone(), *binary));
                    break;
                }
                if MediaType::is_produced(accepted) {
                    break;
                }
            }
        }
        if handler.is_none()
            && let Some(e) = &req.media_error
        {
            return Err(e.clone());
        }
        if handler.is_none()
            && *req.media.representation() == MediaType::GeoJson
            && !self.cache.geojson
        {
            return Err(MediaType::none_available(&req.accept));
        }
        let call = Call {
            function: function.name.clone(),
            args,
            handler,
        };
        let mut req2 = req.clone();
        for (k, v) in &filter_params {
            let (path, f) = parse_filter_param(k, v)?;
            req2.filters.push((path, f));
        }
        let result = match &function.returns {
            Returns::Void => CallResult::Void,
            Returns::Scalar(_) => {
                if !req2.filters.is_empty() || req2.select_given {
                    // PostgREST lets a scalar result be filtered only as a set of rows.
                    if !req2.filters.is_empty() {
                        return Err(ApiError::new(
                            StatusCode::BAD_REQUEST,
                            "PGRST100",
                            "Filters apply only to functions returning rows",
                        ));
                    }
                }
                CallResult::Scalar {
                    set: function.returns_set,
                }
            }
            Returns::Rows { columns, relation } => {
                let table = relation.as_ref().and_then(|r| self.cache.tables.get(r));
                let node = self.root_node(
                    &req2,
                    Source::Call(Box::new(call.clone())),
                    columns.clone(),
                    table,
                )?;
                CallResult::Rows {
                    node,
                    set: function.returns_set,
                }
            }
        };
        Ok((
            Action::Call { call, result },
            function.volatility == Volatility::Volatile,
        ))
    }
    /// 404 PGRST202 in PostgREST's words (Error.hs `NoRpc`), with its hint:
    /// the closest overload's parameters when the name exists, else the
    /// closest function name of the schema (Error.hs `noRpcHint`).
    fn no_function(
        &self,
        name: &str,
        keys: &[String],
        raw: Option<crate::request::RawKind>,
        is_read: bool,
        overloads: &[&Function],
    ) -> ApiError {
        let func = format!("{}.{}", self.schema, name);
        let listed = keys.join(", ");
        let without = |text: String| {
            if keys.is_empty() {
                " without parameters".to_owned()
            } else {
                text
            }
        };
        let message = match raw {
            Some(_) if !is_read => {
                format!("Could not find the function {func} in the schema cache")
            }
            _ => format!(
                "Could not find the function {func}{} in the schema cache",
                without(format!("({listed})"))
            ),
        };
        let with_params = without(format!(
            " with parameter{} {listed}",
            if keys.len() > 1 { "s" } else { "" }
        ));
        let searched = match (is_read, raw) {
            (false, Some(kind)) => {
                format!(" with a single unnamed {} parameter", kind.param_type())
            }
            (false, None) => format!("{with_params} or with a single unnamed json/jsonb parameter"),
            (true, _) => with_params,
        };
        let hint = if raw.is_some() && !is_read {
            None
        } else if overloads.is_empty() {
            let mut names: Vec<&str> = self
                .cache
                .functions
                .iter()
                .filter(|(q, fs)| q.schema == self.schema && fs.iter().any(rpc_callable))
                .map(|(q, _)| q.name.as_str())
                .collect();
            names.sort_unstable();
            FuzzySet::from_names(names)
                .get_one(name, fuzzy::NAME_MIN_SCORE)
                .map(|g| format!("Perhaps you meant to call the function {}.{g}", self.schema))
        } else {
            let as_list = |names: Vec<&str>| {
                let mut names = names;
                names.sort_unstable();
                format!("({})", names.join(", "))
            };
            let lists: Vec<String> = overloads
                .iter()
                .map(|f| as_list(f.params.iter().map(|p| p.name.as_str()).collect()))
                .collect();
            FuzzySet::from_names(lists)
                .get_one(
                    &as_list(keys.iter().map(String::as_str).collect()),
                    fuzzy::DEFAULT_MIN_SCORE,
                )
                .map(|l| format!("Perhaps you meant to call the function {func}{l}"))
        };
        ApiError::new(
            StatusCode::NOT_FOUND,
            "PGRST202",
            message,
        )
        .details(format!(
            "Searched for the function {func}{searched}, but no matches were found in the schema cache."
        ))
        .hint(hint.map_or(Value::Null, Value::String))
    }
}

/// Whether PostgREST can call a function over HTTP (SchemaCache.hs
/// `callable`): no unnamed parameter, or one of type bytea, json, jsonb,
/// text or xml.
/// Whether `select` puts a PostGIS geometry or geography column of `table`
/// at the top level of the result.
fn selects_spatial(select: &[SelectItem], table: &Table) -> bool {
    let spatial = |name: &str| table.column(name).is_some_and(Column::is_spatial);
    select.iter().any(|item| match item {
        SelectItem::Star => table.columns.iter().any(Column::is_spatial),
        SelectItem::Field {
            field,
            cast: None,
            aggregate: None,
            ..
        } => field.json_path.is_empty() && spatial(&field.name),
        _ => false,
    })
}

fn rpc_callable(f: &Function) -> bool {
    let mut unnamed = f.params.iter().filter(|p| p.name.is_empty());
    match (unnamed.next(), unnamed.next()) {
        (None, _) => true,
        (Some(p), None) => {
            p.ty.schema == "pg_catalog"
                && matches!(
                    p.ty.name.as_str(),
                    "bytea" | "json" | "jsonb" | "text" | "xml"
                )
        }
        _ => false,
    }
}

/// A function's parameters as PostgREST orders overloads by them
/// (RoutineParam's derived `Ord`: name, type, required, variadic).
fn param_keys(f: &Function) -> Vec<(&str, &str, bool, bool)> {
    f.params
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.type_text.as_str(),
                !p.has_default,
                p.variadic,
            )
        })
        .collect()
}

enum Found<'a> {
    /// Many-to-one, or one-to-one from the referencing side.
    ManyToOne(&'a ForeignKey),
    /// One-to-many, or one-to-one from the referenced side.
    OneToMany(&'a ForeignKey),
    ManyToMany {
        junction: &'a QualifiedName,
        to_parent: &'a ForeignKey,
        to_child: &'a ForeignKey,
    },
    Computed(&'a Function),
}

impl Found<'_> {
    fn hint_name(&self) -> String {
        match self {
            Found::ManyToOne(fk) | Found::OneToMany(fk) => fk.name.clone(),
            Found::ManyToMany { junction, .. } => junction.name.clone(),
            Found::Computed(f) => f.name.name.clone(),
        }
    }

    /// The relation embedded.
    fn foreign_table(&self) -> &QualifiedName {
        match self {
            Found::ManyToOne(fk) => &fk.ref_table,
            Found::OneToMany(fk) => &fk.table,
            Found::ManyToMany { to_child, .. } => &to_child.ref_table,
            Found::Computed(f) => match &f.returns {
                Returns::Rows {
                    relation: Some(r), ..
                } => r,
                _ => &f.name,
            },
        }
    }

    /// Columns of the parent and of the embedded relation that meet.
    fn columns(&self) -> (&[String], &[String]) {
        match self {
            Found::ManyToOne(fk) => (&fk.columns, &fk.ref_columns),
            Found::OneToMany(fk) => (&fk.ref_columns, &fk.columns),
            _ => (&[], &[]),
        }
    }

    fn constraint(&self) -> Option<&str> {
        match self {
            Found::ManyToOne(fk) | Found::OneToMany(fk) => Some(&fk.name),
            _ => None,
        }
    }

    fn is_self(&self, parent: &QualifiedName) -> bool {
        match self {
            Found::ManyToOne(fk) | Found::OneToMany(fk) => fk.table == fk.ref_table,
            Found::ManyToMany { to_child, .. } => to_child.ref_table == *parent,
            Found::Computed(_) => false,
        }
    }

    fn cardinality(&self) -> &'static str {
        match self {
            Found::ManyToOne(fk) | Found::OneToMany(fk) if fk.one_to_one => "one-to-one",
            Found::ManyToOne(_) => "many-to-one",
            Found::OneToMany(_) => "one-to-many",
            Found::ManyToMany { .. } => "many-to-many",
            Found::Computed(f) if f.is_to_one() => "many-to-one",
            Found::Computed(_) => "one-to-many",
        }
    }

    /// PostgREST lists ambiguous relationships in its `Ord` of
    /// relationships: foreign table, self or not, then one-to-many <
    /// many-to-one < one-to-one < many-to-many, then constraint and
    /// columns (the junction for many-to-many).
    fn sort_key(&self, parent: &QualifiedName) -> (u8, QualifiedName, bool, u8, Vec<String>) {
        let (origin, foreign) = self.columns();
        let pairs = |cons: &str| -> Vec<String> {
            let mut v = vec![cons.to_owned()];
            for (o, f) in origin.iter().zip(foreign) {
                v.push(o.clone());
                v.push(f.clone());
            }
            v
        };
        let (group, rank, parts) = match self {
            Found::OneToMany(fk) if fk.one_to_one => {
                let mut v = pairs(&fk.name);
                v.push("1".into());
                (0, 2, v)
            }
            Found::ManyToOne(fk) if fk.one_to_one => {
                let mut v = pairs(&fk.name);
                v.push("0".into());
                (0, 2, v)
            }
            Found::OneToMany(fk) => (0, 0, pairs(&fk.name)),
            Found::ManyToOne(fk) => (0, 1, pairs(&fk.name)),
            Found::ManyToMany {
                junction,
                to_parent,
                to_child,
            } => {
                let mut v = vec![
                    junction.schema.clone(),
                    junction.name.clone(),
                    to_parent.name.clone(),
                    to_child.name.clone(),
                ];
                v.extend(to_parent.columns.iter().cloned());
                v.extend(to_child.columns.iter().cloned());
                (0, 3, v)
            }
            Found::Computed(f) => (1, 0, vec![f.name.schema.clone(), f.name.name.clone()]),
        };
        (
            group,
            self.foreign_table().clone(),
            self.is_self(parent),
            rank,
            parts,
        )
    }

    /// An entry of PGRST201's `details` (PostgREST Error.hs `compressedRel`).
    fn describe(&self, parent: &QualifiedName) -> Value {
        let embedding = format!("{} with {}", parent.name, self.foreign_table().name);
        match self {
            Found::ManyToOne(fk) => json!({
                "cardinality": self.cardinality(),
                "embedding": embedding,
                "relationship": format!("{} using {}({}) and {}({})", fk.name, fk.table.name, fk.columns.join(", "), fk.ref_table.name, fk.ref_columns.join(", ")),
            }),
            Found::OneToMany(fk) => json!({
                "cardinality": self.cardinality(),
                "embedding": embedding,
                "relationship": format!("{} using {}({}) and {}({})", fk.name, fk.ref_table.name, fk.ref_columns.join(", "), fk.table.name, fk.columns.join(", ")),
            }),
            Found::ManyToMany {
                junction,
                to_parent,
                to_child,
            } => json!({
                "cardinality": self.cardinality(),
                "embedding": embedding,
                "relationship": format!("{} using {}({}) and {}({})", junction.name, to_parent.name, to_parent.columns.join(", "), to_child.name, to_child.columns.join(", ")),
            }),
            Found::Computed(_) => json!({}),
        }
    }
}

/// PGRST200 naming the hint when there was one.
fn no_relationship_hint(parent: &str, name: &str, hint: Option<&str>, schema: &str) -> ApiError {
    match hint {
        None => no_relationship(parent, name, schema),
        Some(h) => ApiError::new(
            StatusCode::BAD_REQUEST,
            "PGRST200",
            format!("Could not find a relationship between '{parent}' and '{name}' in the schema cache"),
        )
        .details(format!(
            "Searched for a foreign key relationship between '{parent}' and '{name}' using the hint '{h}' in the schema '{schema}', but no matches were found."
        )),
    }
}

fn no_relationship(parent: &str, name: &str, schema: &str) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "PGRST200",
        format!("Could not find a relationship between '{parent}' and '{name}' in the schema cache"),
    )
    .details(format!(
        "Searched for a foreign key relationship between '{parent}' and '{name}' in the schema '{schema}', but no matches were found."
    ))
}

/// PGRST205 with PostgREST's hint (Error.hs `tableNotFoundHint`): the
/// closest table or view of the schema scoring at least 0.75, searched
/// only when the schema has fewer than 500 of them (SchemaCache.hs
/// `maxDbTablesForFuzzySearch`); else `null`.
fn table_not_found(cache: &SchemaCache, schema: &str, name: &str) -> ApiError {
    let mut names: Vec<&str> = cache
        .tables
        .keys()
        .filter(|q| q.schema == schema)
        .map(|q| q.name.as_str())
        .collect();
    names.sort_unstable();
    let hint = if names.len() < 500 {
        FuzzySet::from_names(names).get_one(name, fuzzy::NAME_MIN_SCORE)
    } else {
        None
    };
    ApiError::no_table(schema, name).hint(hint.map_or(Value::Null, |t| {
        Value::String(format!("Perhaps you meant the table '{schema}.{t}'"))
    }))
}

/// PGRST200's hint (Error.hs `noRelBetweenHint`): when `parent` has
/// relationships in its schema, the closest of their tables to `name`
/// that is not `name` itself; else the closest table with relationships
/// instead of `parent`. Both at `Fuzzy.getOne`'s default score; `null`
/// when nothing is close.
fn relationship_fuzzy_hint(cache: &SchemaCache, parent: &QualifiedName, name: &str) -> Value {
    let schema = parent.schema.as_str();
    // The parent's relationships into the schema: foreign keys either way,
    // many-to-many through a junction whose primary key holds both keys,
    // computed relationships (functions returning rows of a table).
    let mut children: Vec<&str> = Vec::new();
    for fk in &cache.foreign_keys {
        if fk.table == *parent && fk.ref_table.schema == schema {
            children.push(fk.ref_table.name.as_str());
        }
        if fk.ref_table == *parent && fk.table.schema == schema {
            children.push(fk.table.name.as_str());
        }
        if fk.ref_table == *parent
            && let Some(junction) = cache.tables.get(&fk.table)
        {
            for other in cache.foreign_keys.iter().filter(|o| {
                o.table == fk.table && o.name != fk.name && o.ref_table.schema == schema
            }) {
                if fk
                    .columns
                    .iter()
                    .chain(&other.columns)
                    .all(|c| junction.primary_key.contains(c))
                {
                    children.push(other.ref_table.name.as_str());
                }
            }
        }
    }
    for f in cache.functions.values().flatten() {
        if f.row_arg_of.as_ref() == Some(parent)
            && let Returns::Rows {
                relation: Some(r), ..
            } = &f.returns
            && r.schema == schema
        {
            children.push(r.name.as_str());
        }
    }
    let suggestion = if children.is_empty() {
        // Tables of the exposed schemas with a relationship into this one.
        let exposed = |q: &QualifiedName| cache.schemas.contains(&q.schema);
        let mut parents: Vec<&str> = Vec::new();
        for fk in &cache.foreign_keys {
            if fk.ref_table.schema == schema && exposed(&fk.table) {
                parents.push(fk.table.name.as_str());
            }
            if fk.table.schema == schema && exposed(&fk.ref_table) {
                parents.push(fk.ref_table.name.as_str());
            }
        }
        for f in cache.functions.values().flatten() {
            if let (
                Some(t),
                Returns::Rows {
                    relation: Some(r), ..
                },
            ) = (&f.row_arg_of, &f.returns)
                && r.schema == schema
                && exposed(t)
            {
                parents.push(t.name.as_str());
            }
        }
        parents.sort_unstable();
        parents.dedup();
        FuzzySet::from_names(parents)
            .get_one(&parent.name, fuzzy::DEFAULT_MIN_SCORE)
            .map(|p| format!("Perhaps you meant '{p}' instead of '{}'.", parent.name))
    } else {
        FuzzySet::from_names(children)
            .get(name, fuzzy::DEFAULT_MIN_SCORE)
            .into_iter()
            .find(|(score, _)| *score < 1.0)
            .map(|(_, c)| format!("Perhaps you meant '{c}' instead of '{name}'."))
    };
    suggestion.map_or(Value::Null, Value::String)
}
