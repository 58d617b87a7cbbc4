//! The fragment builder. Its API is the safety argument of the gateway:
//!
//! * [`Sql::push`] takes `&'static str` only: fixed SQL written in this crate.
//! * identifiers go through [`Sql::ident`] / [`Sql::qualified`] (always quoted);
//!   the planner only hands over names it found in the schema cache;
//! * type names through [`Sql::ty`] (quoted, from the cache) or
//!   [`Sql::cast`] (a checked `[a-z0-9_]` word);
//! * every value from the request is a bind parameter ([`Sql::bind`]);
//! * the few literals (JSON path keys, which must be repeated verbatim in
//!   `GROUP BY`) are escaped string constants ([`Sql::literal`]).

use std::fmt::Write as _;

use crate::plan::alias::{Aliases, RelName};
use crate::request::is_valid_cast;
use crate::schema_cache::{QualifiedName, TypeRef};

/// A bind parameter's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Bind {
    Text(String),
    TextArray(Vec<String>),
    Int(i64),
}

/// One statement under construction: text plus its parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sql {
    pub text: String,
    pub binds: Vec<Bind>,
    /// How the plan names its relations (see [`Sql::alias`]).
    pub aliases: Aliases,
}

impl Sql {
    pub fn new() -> Self {
        Self::default()
    }

    /// A statement of `plan`, its relations named as the plan names them.
    pub fn named(plan: &crate::plan::Plan) -> Self {
        Self {
            aliases: plan.aliases.clone(),
            ..Self::default()
        }
    }

    /// Fixed SQL of this crate.
    pub fn push(&mut self, s: &'static str) -> &mut Self {
        self.text.push_str(s);
        self
    }

    /// SQL that comes from the catalog itself (column default expressions as
    /// `pg_get_expr` prints them): trusted, never request input.
    pub fn push_catalog_sql(&mut self, s: &str) -> &mut Self {
        self.text.push('(');
        self.text.push_str(s);
        self.text.push(')');
        self
    }

    /// A quoted identifier.
    pub fn ident(&mut self, name: &str) -> &mut Self {
        push_ident(&mut self.text, name);
        self
    }

    /// `"schema"."name"`.
    pub fn qualified(&mut self, q: &QualifiedName) -> &mut Self {
        push_ident(&mut self.text, &q.schema);
        self.text.push('.');
        push_ident(&mut self.text, &q.name);
        self
    }

    /// A type from the catalog: `"pg_catalog"."int4"`.
    pub fn ty(&mut self, t: &TypeRef) -> &mut Self {
        push_ident(&mut self.text, &t.schema);
        self.text.push('.');
        push_ident(&mut self.text, &t.name);
        self
    }

    /// A reference to relation `n` of the plan, as in `<ref>."column"`:
    /// `"s"."t"` for an unaliased table, else its alias (`"pgrst_3"` for
    /// a number the plan did not name).
    pub fn alias(&mut self, n: usize) -> &mut Self {
        match self.aliases.name(n) {
            Some(RelName::Table(q)) => {
                push_ident(&mut self.text, &q.schema);
                self.text.push('.');
                push_ident(&mut self.text, &q.name);
            }
            Some(RelName::Alias(a)) => push_ident(&mut self.text, a),
            None => {
                let _ = write!(self.text, "\"pgrst_{n}\"");
            }
        }
        self
    }

    /// Relation `n`'s whole row as a value (`"s"."t".*` for an unaliased
    /// table, which a bare `"s"."t"` would not be).
    pub fn alias_row(&mut self, n: usize) -> &mut Self {
        self.alias(n);
        if let Some(RelName::Table(_)) = self.aliases.name(n) {
            self.text.push_str(".*");
        }
        self
    }

    /// Declares relation `n` after what it reads: ` AS "alias"`, nothing
    /// for an unaliased table.
    pub fn declare(&mut self, n: usize) -> &mut Self {
        if !matches!(self.aliases.name(n), Some(RelName::Table(_))) {
            self.text.push_str(" AS ");
            self.alias(n);
        }
        self
    }

    /// A hidden order column of this crate: `"pgrst_order_3"`.
    pub fn hidden(&mut self, n: usize) -> &mut Self {
        let _ = write!(self.text, "\"pgrst_order_{n}\"");
        self
    }

    /// `::type` from `select=col::type`. Refuses anything but a checked word
    /// (the parser already did; this is the second lock).
    pub fn cast(&mut self, cast: &str) -> &mut Self {
        if is_valid_cast(cast) {
            self.text.push_str("::");
            self.text.push_str(cast);
        }
        self
    }

    /// A string constant, escaped so that it is one whatever
    /// `standard_conforming_strings` says.
    pub fn literal(&mut self, value: &str) -> &mut Self {
        self.text.push_str("E'");
        for c in value.chars() {
            match c {
                '\'' => self.text.push_str("''"),
                '\\' => self.text.push_str("\\\\"),
                '\0' => {}
                c => self.text.push(c),
            }
        }
        self.text.push('\'');
        self
    }

    /// A parameter placeholder `$n` for `value`.
    pub fn bind(&mut self, value: Bind) -> &mut Self {
        self.binds.push(value);
        let _ = write!(self.text, "${}", self.binds.len());
        self
    }

    pub fn int(&mut self, n: i64) -> &mut Self {
        self.bind(Bind::Int(n))
    }

    /// `$n` typed as text and cast to `ty`.
    pub fn typed_text(&mut self, value: &str, ty: &TypeRef) -> &mut Self {
        self.bind(Bind::Text(value.to_owned()));
        self.text.push_str("::");
        self.ty(ty)
    }

    /// Text for snapshot tests: the statement, then each parameter.
    pub fn debug(&self) -> String {
        let mut out = self.text.clone();
        for (i, b) in self.binds.iter().enumerate() {
            let _ = write!(out, "\n${} = {:?}", i + 1, b);
        }
        out
    }
}

/// Appends `"name"` with embedded quotes doubled (NUL dropped: it cannot be
/// part of a Postgres name).
pub fn push_ident(out: &mut String, name: &str) {
    out.push('"');
    for c in name.chars() {
        match c {
            '"' => out.push_str("\"\""),
            '\0' => {}
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A string constant for a simple-query statement (used for the
/// transaction's `set_config` calls).
pub fn quote_literal(value: &str) -> String {
    let mut s = Sql::new();
    s.literal(value);
    s.text
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        let mut s = Sql::new();
        s.ident("a\"b")
            .push(" ")
            .literal("it's \\ ok\0")
            .push(" ")
            .cast("text);drop");
        s.push(" ").cast("int[]");
        assert_eq!(
            s.text, "\"a\"\"b\" E'it''s \\\\ ok'  ::int[]",
            "an invalid cast is dropped"
        );
    }
}
