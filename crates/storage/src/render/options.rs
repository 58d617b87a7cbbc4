//! The transformation options of `/render/image` as the platform reads and
//! reports them: query parameters (`width`, `height`, `resize`, `quality`,
//! `format`), the `transformations` string a signed URL carries, and the
//! `X-Transformations` header (imgproxy's option names).

use std::collections::HashMap;

use crate::error::StorageError;

/// `resize`: how the image meets a box of `width` x `height`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resize {
    /// Fills the box, cropping what sticks out (the default).
    Cover,
    /// Fits inside the box, keeping the aspect ratio.
    Contain,
    /// Stretches to the box exactly.
    Fill,
}

impl Resize {
    fn parse(value: &str) -> Option<Self> {
        match value {
            "cover" => Some(Resize::Cover),
            "contain" => Some(Resize::Contain),
            "fill" => Some(Resize::Fill),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Resize::Cover => "cover",
            Resize::Contain => "contain",
            Resize::Fill => "fill",
        }
    }

    /// imgproxy's `resizing_type`, which the platform reports.
    fn imgproxy(self) -> &'static str {
        match self {
            Resize::Cover => "fill",
            Resize::Contain => "fit",
            Resize::Fill => "force",
        }
    }
}

/// `format`: the output format asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Origin,
    Webp,
    Avif,
}

impl Format {
    pub(crate) fn parse(value: &str) -> Option<Self> {
        match value {
            "origin" => Some(Format::Origin),
            "webp" => Some(Format::Webp),
            "avif" => Some(Format::Avif),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::Origin => "origin",
            Format::Webp => "webp",
            Format::Avif => "avif",
        }
    }
}

/// The transformation of one request; dimensions are already clamped to the
/// configured limits (the platform clamps, it does not refuse).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Options {
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub resize: Option<Resize>,
    pub quality: Option<u8>,
    pub format: Option<Format>,
}

/// The smallest and largest width/height (`IMG_LIMITS_MIN_SIZE`,
/// `IMG_LIMITS_MAX_SIZE`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SizeLimits {
    pub min: u32,
    pub max: u32,
}

impl SizeLimits {
    fn clamp(self, value: u64) -> u32 {
        let max = self.max.max(self.min);
        value.clamp(u64::from(self.min), u64::from(max)) as u32
    }
}

fn invalid(message: String) -> StorageError {
    StorageError::InvalidRequest(message)
}

/// A non-negative integer as the platform's schema checks it (the messages
/// are its validator's).
fn dimension(
    query: &HashMap<String, String>,
    name: &str,
    limits: SizeLimits,
) -> Result<Option<u32>, StorageError> {
    let Some(raw) = query.get(name) else {
        return Ok(None);
    };
    let value =
        integer(raw).ok_or_else(|| invalid(format!("querystring/{name} must be integer")))?;
    if value < 0 {
        return Err(invalid(format!("querystring/{name} must be >= 0")));
    }
    // 0 means "not given", as on the platform.
    Ok((value > 0).then(|| limits.clamp(value as u64)))
}

/// An integer literal (`12`, `-3`, `12.0`); anything else is not one.
fn integer(raw: &str) -> Option<i64> {
    let raw = raw.trim();
    if let Ok(value) = raw.parse::<i64>() {
        return Some(value);
    }
    let value: f64 = raw.parse().ok()?;
    (value.is_finite() && value.fract() == 0.0 && value.abs() < 1e15).then_some(value as i64)
}

impl Options {
    /// Reads the query of `/render/image/public|authenticated/...`.
    pub fn from_query(
        query: &HashMap<String, String>,
        limits: SizeLimits,
    ) -> Result<Self, StorageError> {
        let width = dimension(query, "width", limits)?;
        let height = dimension(query, "height", limits)?;
        let resize = match query.get("resize") {
            None => None,
            Some(v) => Some(Resize::parse(v).ok_or_else(|| {
                invalid("querystring/resize must be equal to one of the allowed values".into())
            })?),
        };
        let format = match query.get("format") {
            None => None,
            Some(v) => Some(Format::parse(v).ok_or_else(|| {
                invalid("querystring/format must be equal to one of the allowed values".into())
            })?),
        };
        let quality = match query.get("quality") {
            None => None,
            Some(raw) => {
                let q = integer(raw)
                    .ok_or_else(|| invalid("querystring/quality must be integer".into()))?;
                if q < 20 {
                    return Err(invalid("querystring/quality must be >= 20".into()));
                }
                if q > 100 {
                    return Err(invalid("querystring/quality must be <= 100".into()));
                }
                Some(q as u8)
            }
        };
        Ok(Self {
            width,
            height,
            resize,
            quality,
            format,
        })
    }

    /// Reads the options a signed URL's token carries (`width:300,resize:cover`);
    /// like the platform, unknown or malformed parts are skipped.
    pub fn from_token(transformations: &str, limits: SizeLimits) -> Self {
        let mut options = Options::default();
        for part in transformations.split(',') {
            let mut bits = part.split(':');
            let (Some(name), Some(value)) = (bits.next(), bits.next()) else {
                continue;
            };
            let number = || integer(value).filter(|v| *v > 0);
            match name {
                "width" => options.width = number().map(|v| limits.clamp(v as u64)),
                "height" => options.height = number().map(|v| limits.clamp(v as u64)),
                "resize" => options.resize = Resize::parse(value),
                "format" => options.format = Format::parse(value),
                "quality" => options.quality = number().map(|v| v.clamp(20, 100) as u8),
                _ => {}
            }
        }
        options
    }

    /// The string a signed URL carries (the platform's "keep original" form).
    /// Empty when nothing is transformed, so the URL stays a plain download.
    pub fn to_token(&self) -> String {
        let mut parts = Vec::new();
        if let Some(h) = self.height {
            parts.push(format!("height:{h}"));
        }
        if let Some(w) = self.width {
            parts.push(format!("width:{w}"));
        }
        if (self.width.is_some() || self.height.is_some())
            && let Some(resize) = self.resize
        {
            parts.push(format!("resize:{}", resize.name()));
        }
        if let Some(q) = self.quality {
            parts.push(format!("quality:{q}"));
        }
        if let Some(f) = self.format.filter(|f| *f != Format::Origin) {
            parts.push(format!("format:{}", f.name()));
        }
        parts.join(",")
    }

    /// The `X-Transformations` header: the imgproxy options the platform
    /// applies, in its order (`height:100,width:100,resizing_type:fill`).
    pub fn header(&self) -> String {
        let mut parts = Vec::new();
        if let Some(h) = self.height {
            parts.push(format!("height:{h}"));
        }
        if let Some(w) = self.width {
            parts.push(format!("width:{w}"));
        }
        if self.width.is_some() || self.height.is_some() {
            let resize = self.resize.unwrap_or(Resize::Cover);
            parts.push(format!("resizing_type:{}", resize.imgproxy()));
        }
        if let Some(q) = self.quality {
            parts.push(format!("quality:{q}"));
        }
        if let Some(f) = self.format.filter(|f| *f != Format::Origin) {
            parts.push(format!("format:{}", f.name()));
        }
        parts.join(",")
    }

    /// Parses a signed-URL request body's `transform` object (same rules as
    /// the query, numbers as JSON numbers or strings).
    pub fn from_json(value: &serde_json::Value, limits: SizeLimits) -> Result<Self, StorageError> {
        let mut query = HashMap::new();
        if let Some(map) = value.as_object() {
            for (key, v) in map {
                let text = match v {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => continue,
                    other => other.to_string(),
                };
                query.insert(key.clone(), text);
            }
        }
        Self::from_query(&query, limits).map_err(|e| match e {
            StorageError::InvalidRequest(m) => {
                StorageError::InvalidRequest(m.replacen("querystring/", "body/transform/", 1))
            }
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: SizeLimits = SizeLimits { min: 1, max: 2000 };

    fn query(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn query_options_and_header() {
        let o = Options::from_query(
            &query(&[
                ("width", "100"),
                ("height", "50"),
                ("quality", "70"),
                ("format", "webp"),
            ]),
            LIMITS,
        )
        .unwrap();
        assert_eq!(
            o.header(),
            "height:50,width:100,resizing_type:fill,quality:70,format:webp"
        );
        let o = Options::from_query(&query(&[("width", "9999"), ("resize", "contain")]), LIMITS)
            .unwrap();
        assert_eq!(o.width, Some(2000));
        assert_eq!(o.header(), "width:2000,resizing_type:fit");
        let o =
            Options::from_query(&query(&[("width", "0"), ("format", "origin")]), LIMITS).unwrap();
        assert_eq!(o.header(), "");
    }

    #[test]
    fn bad_query_options_are_refused_with_the_schema_messages() {
        let message = |pairs: &[(&str, &str)]| {
            Options::from_query(&query(pairs), LIMITS)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            message(&[("width", "abc")]),
            "querystring/width must be integer"
        );
        assert_eq!(
            message(&[("height", "-3")]),
            "querystring/height must be >= 0"
        );
        assert_eq!(
            message(&[("quality", "10")]),
            "querystring/quality must be >= 20"
        );
        assert_eq!(
            message(&[("quality", "101")]),
            "querystring/quality must be <= 100"
        );
        assert_eq!(
            message(&[("resize", "stretch")]),
            "querystring/resize must be equal to one of the allowed values"
        );
        assert_eq!(
            message(&[("format", "png")]),
            "querystring/format must be equal to one of the allowed values"
        );
    }

    #[test]
    fn token_round_trip() {
        let o = Options::from_query(
            &query(&[
                ("width", "300"),
                ("resize", "fill"),
                ("quality", "55"),
                ("format", "avif"),
            ]),
            LIMITS,
        )
        .unwrap();
        let token = o.to_token();
        assert_eq!(token, "width:300,resize:fill,quality:55,format:avif");
        assert_eq!(Options::from_token(&token, LIMITS), o);
        // junk is skipped, huge sizes clamped
        let o = Options::from_token("width:99999,nonsense,height:x,resize:evil", LIMITS);
        assert_eq!(o.width, Some(2000));
        assert_eq!(o.height, None);
        assert_eq!(o.resize, None);
    }
}
