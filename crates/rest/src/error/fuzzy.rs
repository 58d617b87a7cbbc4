//! PostgREST's "Perhaps you meant …" hints: the closest name by the fuzzy
//! string set PostgREST uses (Haskell `fuzzyset` 0.2.4, itself a port of
//! fuzzyset.js), so that a hint is given exactly when PostgREST gives one.
//!
//! The algorithm: names are lower-cased; an exact (case-insensitive) match
//! scores 1. Otherwise, for gram sizes 3 then 2, each name is compared with
//! the query by the cosine similarity of their n-gram counts (of the name
//! keeping only letters, digits, spaces and commas, between `-` marks); the
//! best 50 sharing a gram are re-scored by normalised Levenshtein similarity
//! (`1 - distance / longer length`), sorted best first and cut at the
//! minimum score. The first gram size with a result answers.

use std::collections::HashMap;

/// PostgREST's minimum score for table and function name hints
/// (Error.hs `getFuzzyHint`).
pub const NAME_MIN_SCORE: f64 = 0.75;
/// `Fuzzy.getOne`'s default minimum score (parameter-list and
/// relationship hints).
pub const DEFAULT_MIN_SCORE: f64 = 0.33;

/// A set of names to search.
#[derive(Debug, Clone, Default)]
pub struct FuzzySet {
    /// (lower-cased key, the name as given), in insertion order; a key is
    /// kept once.
    entries: Vec<(String, String)>,
}

impl FuzzySet {
    /// Built as `Data.FuzzySet.fromList` does: it adds the list from its
    /// end, so the last name is the first entry (this decides ties).
    pub fn from_names<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let names: Vec<String> = names.into_iter().map(|s| s.as_ref().to_owned()).collect();
        let mut set = Self::default();
        for name in names.iter().rev() {
            let key = name.to_lowercase();
            if !set.entries.iter().any(|(k, _)| *k == key) {
                set.entries.push((key, name.clone()));
            }
        }
        set
    }

    /// Every match scoring at least `min_score`, best first.
    pub fn get(&self, query: &str, min_score: f64) -> Vec<(f64, String)> {
        let key = query.to_lowercase();
        if let Some((_, name)) = self.entries.iter().find(|(k, _)| *k == key) {
            return vec![(1.0, name.clone())];
        }
        for size in [3, 2] {
            let found = self.matches(&key, size, min_score);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// The best match scoring at least `min_score`.
    pub fn get_one(&self, query: &str, min_score: f64) -> Option<String> {
        self.get(query, min_score)
            .into_iter()
            .next()
            .map(|(_, n)| n)
    }

    fn matches(&self, key: &str, size: usize, min_score: f64) -> Vec<(f64, String)> {
        let query = gram_vector(key, size);
        let query_norm = norm(&query);
        let mut cosine: Vec<(f64, usize)> = Vec::new();
        for (i, (entry, _)) in self.entries.iter().enumerate() {
            let grams = gram_vector(entry, size);
            let dot: usize = query
                .iter()
                .filter_map(|(g, n)| grams.get(g).map(|m| n * m))
                .sum();
            if dot > 0 {
                cosine.push((dot as f64 / (query_norm * norm(&grams)), i));
            }
        }
        // Stable sorts, best first.
        cosine.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut scored: Vec<(f64, usize)> = cosine
            .into_iter()
            .take(50)
            .map(|(_, i)| (levenshtein_similarity(key, &self.entries[i].0), i))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored
            .into_iter()
            .filter(|(score, _)| *score >= min_score)
            .map(|(score, i)| (score, self.entries[i].1.clone()))
            .collect()
    }
}

/// n-gram counts of `-name-`, the name reduced to letters, digits, spaces
/// and commas.
fn gram_vector(value: &str, size: usize) -> HashMap<String, usize> {
    let mut chars = vec!['-'];
    chars.extend(
        value
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || c.is_whitespace() || *c == ','),
    );
    chars.push('-');
    let mut grams = HashMap::new();
    if chars.len() >= size {
        for w in chars.windows(size) {
            *grams.entry(w.iter().collect::<String>()).or_insert(0) += 1;
        }
    }
    grams
}

fn norm(v: &HashMap<String, usize>) -> f64 {
    (v.values().map(|n| n * n).sum::<usize>() as f64).sqrt()
}

/// `1 - levenshtein / max length` over characters (text-metrics'
/// `levenshteinNorm`); two empty strings are equal.
fn levenshtein_similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    1.0 - prev[b.len()] as f64 / longest as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    // The doctests of PostgREST's Error.hs (noRpcHint, noRelBetweenHint).
    #[test]
    fn postgrest_examples() {
        let procs = FuzzySet::from_names(["test", "another"]);
        assert_eq!(
            procs.get_one("testt", NAME_MIN_SCORE).as_deref(),
            Some("test")
        );
        assert_eq!(procs.get_one("other", NAME_MIN_SCORE), None);
        assert_eq!(procs.get_one("noclosealternative", NAME_MIN_SCORE), None);

        let params = FuzzySet::from_names(["(name, param, val)", "(attr, id)"]);
        let one = |q: &str| params.get_one(q, DEFAULT_MIN_SCORE);
        assert_eq!(
            one("(nam, pqaram, vall)").as_deref(),
            Some("(name, param, val)")
        );
        assert_eq!(one("(param, val)").as_deref(), Some("(name, param, val)"));
        assert_eq!(one("(attrs, id)").as_deref(), Some("(attr, id)"));
        assert_eq!(one("(id)").as_deref(), Some("(attr, id)"));
        assert_eq!(one("(noclosealternative)"), None);

        let parents = FuzzySet::from_names(["films"]);
        assert_eq!(
            parents.get_one("film", DEFAULT_MIN_SCORE).as_deref(),
            Some("films")
        );
        let children = FuzzySet::from_names(["directors", "roles", "actors"]);
        assert_eq!(children.get("role", DEFAULT_MIN_SCORE)[0].1, "roles");
        assert_eq!(
            children.get("actors", DEFAULT_MIN_SCORE),
            vec![(1.0, "actors".to_owned())]
        );
        assert!(
            children
                .get("noclosealternative", DEFAULT_MIN_SCORE)
                .is_empty()
        );
    }

    #[test]
    fn exact_match_ignores_case_and_keeps_the_name() {
        let set = FuzzySet::from_names(["Users"]);
        assert_eq!(
            set.get("users", NAME_MIN_SCORE),
            vec![(1.0, "Users".to_owned())]
        );
        assert!((levenshtein_similarity("kitten", "sitting") - (1.0 - 3.0 / 7.0)).abs() < 1e-9);
    }
}
