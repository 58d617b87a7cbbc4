//! The names a statement gives the relations it reads, as PostgREST v14
//! names them (Plan.hs `addRels`, QueryBuilder.hs `fromF`), so that an
//! execution plan shows the same scans (`Seq Scan on cities cities_1`) and
//! the database's errors name the same relation (`column cities_1.sum does
//! not exist`):
//!
//! * a read's table, the target of an UPDATE or DELETE and the tables of a
//!   many-to-many embed are not aliased: they are referred to by their
//!   qualified names;
//! * the rows a mutation returned, or a function's rows, are named after
//!   the table (or the function);
//! * an embedded table is `<table>_<depth>`, and the join of its rows to
//!   the parent `<parent table>_<embed name or alias>_<depth>`.
//!
//! A name that would be ambiguous where it is used — the same name declared
//! in the same or an enclosing subquery, as in a self-embed of a table
//! named `cities_1` under `cities` — and the names this crate keeps for
//! itself (`pgrst_…`) are replaced by `pgrst_<n>`; the name the database's
//! errors would show stays PostgREST's.

use super::{Link, Source};
use crate::schema_cache::QualifiedName;

/// How a statement names one relation.
#[derive(Debug, Clone, PartialEq)]
pub enum RelName {
    /// The relation itself, unaliased: `"schema"."table"`.
    Table(QualifiedName),
    /// An alias: `"cities_1"`.
    Alias(String),
}

impl RelName {
    /// The name SQL resolves references by.
    fn refname(&self) -> &str {
        match self {
            RelName::Table(q) => &q.name,
            RelName::Alias(a) => a,
        }
    }
}

/// The part of the statement a name is declared in: the mutation (inside
/// the `pgrst_source` CTE) or the select of the response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Select,
    Mutation,
}

#[derive(Debug, Clone, PartialEq)]
struct Entry {
    name: RelName,
    /// PostgREST's name, as the database's messages would show it.
    shown: String,
    part: Part,
    /// The embed path of the subquery that declares it.
    scope: Vec<String>,
}

/// The names of one plan's relations, by number (from 1).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Aliases(Vec<Entry>);

impl Aliases {
    /// Registers `name`, declared in `part` by the subquery of the embed
    /// path `scope`; returns its number.
    fn add(&mut self, name: RelName, part: Part, scope: &[String]) -> usize {
        let n = self.0.len() + 1;
        let shown = name.refname().to_owned();
        let clashes = name.refname().starts_with("pgrst_")
            || self.0.iter().any(|e| {
                e.part == part
                    && e.name.refname() == name.refname()
                    && (e.scope.starts_with(scope) || scope.starts_with(&e.scope))
            });
        let name = if clashes {
            RelName::Alias(format!("pgrst_{n}"))
        } else {
            name
        };
        self.0.push(Entry {
            name,
            shown,
            part,
            scope: scope.to_vec(),
        });
        n
    }

    /// A root node: a read's table itself, else named after the relation
    /// (the table written, or the function's table or name).
    pub fn root(&mut self, source: &Source, label: &str) -> usize {
        let name = match source {
            Source::Table(q) => RelName::Table(q.clone()),
            _ => RelName::Alias(label.to_owned()),
        };
        self.add(name, Part::Select, &[])
    }

    /// The table an UPDATE or DELETE writes.
    pub fn written(&mut self, table: &QualifiedName) -> usize {
        self.add(RelName::Table(table.clone()), Part::Mutation, &[])
    }

    /// The junction of a many-to-many embed at `path`.
    pub fn junction(&mut self, table: &QualifiedName, path: &[String]) -> usize {
        self.add(RelName::Table(table.clone()), Part::Select, path)
    }

    /// The node of the embed at `path`: `<table>_<depth>`, or the table
    /// itself for the target of a many-to-many embed (joined to its
    /// junction unaliased).
    pub fn embedded(&mut self, target: &QualifiedName, link: &Link, path: &[String]) -> usize {
        let name = match link {
            Link::Junction { .. } => RelName::Table(target.clone()),
            _ => RelName::Alias(format!("{}_{}", target.name, path.len())),
        };
        self.add(name, Part::Select, path)
    }

    /// The join of the embed at `path` to its parent, in the parent's
    /// subquery: `<parent table>_<embed name or alias>_<depth>`.
    pub fn lateral(&mut self, parent_table: &str, path: &[String]) -> usize {
        let (name, parent_path) = path.split_last().expect("an embed has a name");
        let lateral = format!("{parent_table}_{name}_{}", path.len());
        self.add(RelName::Alias(lateral), Part::Select, parent_path)
    }

    /// How relation `n` is written in SQL (`None`: not registered).
    pub fn name(&self, n: usize) -> Option<&RelName> {
        n.checked_sub(1)
            .and_then(|i| self.0.get(i))
            .map(|e| &e.name)
    }

    /// The name PostgREST gives relation `n`, as its errors show it.
    pub fn shown(&self, n: usize) -> &str {
        n.checked_sub(1)
            .and_then(|i| self.0.get(i))
            .map_or("", |e| e.shown.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(name: &str) -> QualifiedName {
        QualifiedName::new("public", name)
    }

    #[test]
    fn clashing_names_fall_back() {
        let mut a = Aliases::default();
        let root = a.root(&Source::Table(q("cities_1")), "cities_1");
        let path = ["cities".to_owned()];
        let child = a.embedded(&q("cities"), &Link::None, &path);
        let join = a.lateral("cities_1", &path);
        assert_eq!(a.name(root), Some(&RelName::Table(q("cities_1"))));
        assert_eq!(a.name(child), Some(&RelName::Alias("pgrst_2".into())));
        assert_eq!(a.shown(child), "cities_1");
        assert_eq!(
            a.name(join),
            Some(&RelName::Alias("cities_1_cities_1".into()))
        );
        // Sibling subqueries may repeat a name; another part of the
        // statement too.
        let a1 = a.embedded(&q("users"), &Link::None, &["author".to_owned()]);
        let a2 = a.embedded(&q("users"), &Link::None, &["editor".to_owned()]);
        assert_eq!(a.name(a2), Some(&RelName::Alias("users_1".into())));
        assert_eq!(a.name(a1), a.name(a2));
        let m = a.written(&q("cities_1"));
        assert_eq!(a.name(m), Some(&RelName::Table(q("cities_1"))));
        // This crate's own names are never taken.
        let p = a.root(&Source::Mutated, "pgrst_source");
        assert_eq!(a.name(p), Some(&RelName::Alias(format!("pgrst_{p}"))));
        assert_eq!(a.shown(p), "pgrst_source");
    }
}
