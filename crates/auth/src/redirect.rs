//! Where the browser may be sent after an e-mail link or an OAuth sign-in.

use url::Url;

/// `requested` when it is allowed (same origin as `site_url`, or matching an
/// allow-list glob), else `site_url`.
pub fn choose(requested: Option<&str>, site_url: &str, allow_list: &[String]) -> String {
    match requested.map(str::trim).filter(|r| !r.is_empty()) {
        Some(r) if is_allowed(r, site_url, allow_list) => r.to_owned(),
        _ => site_url.to_owned(),
    }
}

/// Whether `target` may be redirected to.
pub fn is_allowed(target: &str, site_url: &str, allow_list: &[String]) -> bool {
    let Ok(url) = Url::parse(target) else {
        return false;
    };
    if !matches!(url.scheme(), "http" | "https") && !allow_list.iter().any(|p| glob(p, target)) {
        return false;
    }
    if let Ok(site) = Url::parse(site_url)
        && site.origin() == url.origin()
    {
        return true;
    }
    allow_list
        .iter()
        .any(|pattern| glob(pattern.trim(), target))
}

/// Glob match: `**` matches anything, `*` anything but `/` and `.`, every
/// other character itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    fn go(p: &[u8], t: &[u8]) -> bool {
        match p {
            [] => t.is_empty(),
            [b'*', b'*', rest @ ..] => (0..=t.len()).any(|i| go(rest, &t[i..])),
            [b'*', rest @ ..] => {
                let mut i = 0;
                loop {
                    if go(rest, &t[i..]) {
                        return true;
                    }
                    if i == t.len() || t[i] == b'/' || t[i] == b'.' {
                        return false;
                    }
                    i += 1;
                }
            }
            [c, rest @ ..] => t.first() == Some(c) && go(rest, &t[1..]),
        }
    }
    go(pattern.as_bytes(), text.as_bytes())
}

/// `base` with `params` added to its query string (PKCE `?code=`, errors).
pub fn with_query(base: &str, params: &[(&str, &str)]) -> String {
    match Url::parse(base) {
        Ok(mut url) => {
            {
                let mut pairs = url.query_pairs_mut();
                for (k, v) in params {
                    pairs.append_pair(k, v);
                }
            }
            url.to_string()
        }
        Err(_) => base.to_owned(),
    }
}

/// `base` with `params` form-encoded in its fragment (implicit flow), plus
/// the `sb=` marker supabase-js looks for.
pub fn with_fragment(base: &str, params: &[(&str, &str)]) -> String {
    let mut encoder = url::form_urlencoded::Serializer::new(String::new());
    let mut sorted: Vec<&(&str, &str)> = params.iter().collect();
    sorted.sort_by_key(|(k, _)| *k);
    for (k, v) in sorted {
        if *k == "sb" {
            continue;
        }
        encoder.append_pair(k, v);
    }
    encoder.append_pair("sb", "");
    let base = base.split('#').next().unwrap_or(base);
    format!("{base}#{}", encoder.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SITE: &str = "http://localhost:3000";

    #[test]
    fn redirect_targets() {
        let allow = vec![
            "https://app.example.com/**".to_owned(),
            "https://*.preview.example.com".to_owned(),
            "myapp://callback".to_owned(),
        ];
        let cases = [
            (
                Some("http://localhost:3000/welcome"),
                "http://localhost:3000/welcome",
            ),
            (Some("http://localhost:3001/welcome"), SITE),
            (
                Some("https://app.example.com/a/b?x=1"),
                "https://app.example.com/a/b?x=1",
            ),
            (Some("https://evil.com/?https://app.example.com/"), SITE),
            (
                Some("https://pr-1.preview.example.com"),
                "https://pr-1.preview.example.com",
            ),
            (Some("https://a.b.preview.example.com"), SITE),
            (Some("myapp://callback"), "myapp://callback"),
            (Some("javascript:alert(1)"), SITE),
            (Some("not a url"), SITE),
            (Some(""), SITE),
            (None, SITE),
        ];
        for (requested, expected) in cases {
            assert_eq!(choose(requested, SITE, &allow), expected, "{requested:?}");
        }
    }

    #[test]
    fn fragments_are_sorted_and_marked() {
        let url = with_fragment(
            "http://localhost:3000/cb#old",
            &[("token_type", "bearer"), ("access_token", "a b")],
        );
        assert_eq!(
            url,
            "http://localhost:3000/cb#access_token=a+b&token_type=bearer&sb="
        );
    }

    #[test]
    fn queries_keep_existing_parameters() {
        let url = with_query(
            "http://localhost:3000/cb?sb_flow_id=ab12",
            &[("code", "xyz")],
        );
        assert_eq!(url, "http://localhost:3000/cb?sb_flow_id=ab12&code=xyz");
    }
}
