//! The URL of the first image a template page's gallery shows, exactly as
//! the app will ask for it, so that the page's `<head>` can preload it: the
//! browser then fetches the image beside the app's scripts instead of after
//! them and the template's data (on a slow phone, the page's largest paint
//! waits for that image).
//!
//! The app asks for `renditionUrl(value, 'templates', GALLERY_RENDITION)`
//! (`app/src/lib/image-url.ts`): a stored image through supabase-js
//! `getPublicUrl(path, { transform })`, which is
//! `encodeURI(origin + '/storage/v1/render/image/public/' + bucket + '/' +
//! path)` followed by the transform's query in storage-js's order; anything
//! else as it is. A preload only helps when its URL is the same string, so
//! whatever the app would treat differently (an undecodable segment, an
//! absolute URL elsewhere) gets no preload. The browser walk `shared-links`
//! checks that the preload is the image the gallery shows.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

/// The app's `GALLERY_RENDITION` (`{ width: 1280, resize: 'cover' }`), as
/// storage-js writes it into the query.
const GALLERY_QUERY: &str = "width=1280&resize=cover";

/// What JavaScript's `encodeURI` leaves as it is: letters, digits and
/// `; , / ? : @ & = + $ - _ . ! ~ * ' ( ) #`.
const ENCODE_URI: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b';')
    .remove(b',')
    .remove(b'/')
    .remove(b'?')
    .remove(b':')
    .remove(b'@')
    .remove(b'&')
    .remove(b'=')
    .remove(b'+')
    .remove(b'$')
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'#');

/// The gallery's first image on the page's own origin (a root-relative
/// URL, which the browser resolves as the app's absolute one), or `None`
/// when the app would not ask for this very string.
pub(super) fn gallery_image(value: &str, bucket: &str) -> Option<String> {
    let (bucket, path) = match super::public_object(value) {
        Some(rest) => {
            let (bucket, path) = rest.split_once('/').filter(|(b, _)| !b.is_empty())?;
            (decode_uri_component(bucket)?, decode_uri_component(path)?)
        }
        // A site file (`/demo/planner.svg`): the app shows it as it is.
        // (`//host`, `/\host` and `/<tab>/host`, whose tab a URL parser
        // drops, lead to other sites.)
        None if value.starts_with('/') => {
            let elsewhere =
                value.starts_with("//") || value.chars().any(|c| c == '\\' || c.is_ascii_control());
            return (!elsewhere).then(|| value.to_owned());
        }
        // Other sites, data: and blob: URLs: no preload.
        None if ["http:", "https:", "data:", "blob:"]
            .iter()
            .any(|scheme| value.starts_with(scheme)) =>
        {
            return None;
        }
        None => (bucket.to_owned(), value.to_owned()),
    };
    // As the pages' other image URLs: nothing with a scheme-like colon or
    // a dot segment (the app would ask for it, but it is no stored image).
    if path.is_empty()
        || bucket.contains(':')
        || path.contains(':')
        || path.split('/').any(|s| s == ".." || s == ".")
    {
        return None;
    }
    let path = path.trim_start_matches('/');
    Some(format!(
        "{}?{GALLERY_QUERY}",
        utf8_percent_encode(
            &format!("/storage/v1/render/image/public/{bucket}/{path}"),
            ENCODE_URI
        )
    ))
}

/// JavaScript's `decodeURIComponent`: `None` where it throws (a `%` not
/// followed by two hex digits, bytes that are not UTF-8).
fn decode_uri_component(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let well_formed = bytes.iter().enumerate().all(|(i, b)| {
        *b != b'%'
            || bytes
                .get(i + 1..i + 3)
                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
    });
    if !well_formed {
        return None;
    }
    percent_decode_str(text)
        .decode_utf8()
        .ok()
        .map(|s| s.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases the app's test (`app/src/lib/gallery-preload.test.ts`)
    /// checks against its own `renditionUrl` with the real supabase-js.
    const CASES: &str = include_str!("../../../../app/src/lib/gallery-preload-cases.json");

    #[test]
    fn the_preload_is_the_url_the_app_asks_for_or_none() {
        #[derive(serde::Deserialize)]
        struct Case {
            value: String,
            preload: Option<String>,
        }
        let cases: Vec<Case> = serde_json::from_str(CASES).unwrap();
        assert!(cases.iter().filter(|c| c.preload.is_none()).count() > 5);
        for case in cases {
            assert_eq!(
                gallery_image(&case.value, "templates"),
                case.preload,
                "{}",
                case.value
            );
        }
    }
}
