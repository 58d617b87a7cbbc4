//! Decoding, resizing and encoding one image, as imgproxy does for the
//! platform: never enlarged, `cover` crops around the centre, `contain`
//! fits, `fill` stretches; the source's size is read from its header and
//! checked before any pixel is decoded. Runs on the blocking pool.

use std::io::Cursor;

use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat, ImageReader, Limits};

use super::options::{Format, Options, Resize};

/// imgproxy's default quality.
const DEFAULT_QUALITY: u8 = 80;

/// Why an image could not be rendered; the messages are the platform's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RenderError {
    Unsupported,
    ResolutionTooLarge,
}

impl RenderError {
    pub fn message(self) -> &'static str {
        match self {
            RenderError::Unsupported => "The source image is invalid or unsupported for rendering",
            RenderError::ResolutionTooLarge => {
                "The source image resolution is too large to process"
            }
        }
    }
}

/// A format a rendition is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    Jpeg,
    Png,
    Gif,
    Webp,
}

impl Output {
    pub fn content_type(self) -> &'static str {
        match self {
            Output::Jpeg => "image/jpeg",
            Output::Png => "image/png",
            Output::Gif => "image/gif",
            Output::Webp => "image/webp",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Output::Jpeg => "jpg",
            Output::Png => "png",
            Output::Gif => "gif",
            Output::Webp => "webp",
        }
    }

    fn of_source(format: ImageFormat) -> Option<Self> {
        match format {
            ImageFormat::Jpeg => Some(Output::Jpeg),
            ImageFormat::Png => Some(Output::Png),
            ImageFormat::Gif => Some(Output::Gif),
            ImageFormat::WebP => Some(Output::Webp),
            _ => None,
        }
    }
}

/// The source's format, from its first bytes (never from the declared type).
pub(crate) fn sniff(bytes: &[u8]) -> Result<Output, RenderError> {
    image::guess_format(bytes)
        .ok()
        .and_then(Output::of_source)
        .ok_or(RenderError::Unsupported)
}

/// The format to write: `origin` keeps the source's, `webp` (and `avif`,
/// which Plinth has no encoder for) give WebP, and without `format` WebP is
/// chosen when the client accepts it (imgproxy's WebP detection, which the
/// platform enables), else the source's format.
pub(crate) fn choose_output(options: &Options, source: Output, accept: Option<&str>) -> Output {
    match options.format {
        Some(Format::Origin) => source,
        Some(Format::Webp | Format::Avif) => Output::Webp,
        None if accept.is_some_and(|a| a.contains("image/webp")) => Output::Webp,
        None => source,
    }
}

/// The output format when it does not depend on the source (WebP asked
/// for, or accepted without a `format`), so a cached rendition can be found
/// without looking at the source.
pub(crate) fn fixed_output(options: &Options, accept: Option<&str>) -> Option<Output> {
    match options.format {
        Some(Format::Webp | Format::Avif) => Some(Output::Webp),
        None if accept.is_some_and(|a| a.contains("image/webp")) => Some(Output::Webp),
        _ => None,
    }
}

/// The size of the result for a source of `sw` x `sh`: `(scaled width,
/// scaled height, crop width, crop height)`.
pub(crate) fn geometry(options: &Options, sw: u32, sh: u32) -> (u32, u32, u32, u32) {
    let (sw_f, sh_f) = (f64::from(sw), f64::from(sh));
    let round = |v: f64| (v.round() as u32).max(1);
    match (options.width, options.height) {
        (None, None) => (sw, sh, sw, sh),
        (Some(w), Some(h)) => match options.resize.unwrap_or(Resize::Cover) {
            Resize::Fill => {
                let (w, h) = (w.min(sw), h.min(sh));
                (w, h, w, h)
            }
            Resize::Contain => {
                let scale = (f64::from(w) / sw_f).min(f64::from(h) / sh_f).min(1.0);
                let (rw, rh) = (round(sw_f * scale), round(sh_f * scale));
                (rw, rh, rw, rh)
            }
            Resize::Cover => {
                let scale = (f64::from(w) / sw_f).max(f64::from(h) / sh_f).min(1.0);
                let (rw, rh) = (round(sw_f * scale), round(sh_f * scale));
                (rw, rh, w.min(rw), h.min(rh))
            }
        },
        (Some(w), None) => {
            if options.resize == Some(Resize::Fill) {
                let w = w.min(sw);
                return (w, sh, w, sh);
            }
            let scale = (f64::from(w) / sw_f).min(1.0);
            let (rw, rh) = (round(sw_f * scale), round(sh_f * scale));
            (rw, rh, rw, rh)
        }
        (None, Some(h)) => {
            if options.resize == Some(Resize::Fill) {
                let h = h.min(sh);
                return (sw, h, sw, h);
            }
            let scale = (f64::from(h) / sh_f).min(1.0);
            let (rw, rh) = (round(sw_f * scale), round(sh_f * scale));
            (rw, rh, rw, rh)
        }
    }
}

/// The source's dimensions from its header alone.
pub(crate) fn dimensions(bytes: &[u8]) -> Result<(u32, u32), RenderError> {
    ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|_| RenderError::Unsupported)?
        .into_dimensions()
        .map_err(|_| RenderError::Unsupported)
}

/// Renders `bytes` with `options` into `output`; refuses a source of more
/// than `max_pixels` before decoding it.
pub(crate) fn render(
    bytes: &[u8],
    options: &Options,
    output: Output,
    max_pixels: u64,
) -> Result<Vec<u8>, RenderError> {
    let (sw, sh) = dimensions(bytes)?;
    if sw == 0 || sh == 0 {
        return Err(RenderError::Unsupported);
    }
    if u64::from(sw) * u64::from(sh) > max_pixels {
        return Err(RenderError::ResolutionTooLarge);
    }
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|_| RenderError::Unsupported)?;
    // Defence in depth: the decoder itself refuses more than the header said.
    let mut limits = Limits::default();
    limits.max_image_width = Some(sw);
    limits.max_image_height = Some(sh);
    limits.max_alloc = Some(max_pixels.saturating_mul(8).max(1 << 20));
    reader.limits(limits);
    let image = reader.decode().map_err(|_| RenderError::Unsupported)?;
    let (rw, rh, cw, ch) = geometry(options, image.width(), image.height());
    let image = if (rw, rh) == (image.width(), image.height()) {
        image
    } else {
        image.resize_exact(rw, rh, FilterType::CatmullRom)
    };
    let image = if (cw, ch) == (rw, rh) {
        image
    } else {
        image.crop_imm((rw - cw) / 2, (rh - ch) / 2, cw, ch)
    };
    encode(&image, output, options.quality.unwrap_or(DEFAULT_QUALITY))
}

fn encode(image: &DynamicImage, output: Output, quality: u8) -> Result<Vec<u8>, RenderError> {
    let mut out = Vec::new();
    let failed = |_| RenderError::Unsupported;
    match output {
        Output::Jpeg => {
            let rgb = image.to_rgb8();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
                .encode_image(&rgb)
                .map_err(failed)?;
        }
        Output::Png => image
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .map_err(failed)?,
        Output::Gif => image
            .to_rgba8()
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Gif)
            .map_err(failed)?,
        Output::Webp => {
            let memory = if image.color().has_alpha() {
                let rgba = image.to_rgba8();
                webp::Encoder::from_rgba(rgba.as_raw(), rgba.width(), rgba.height())
                    .encode(f32::from(quality))
            } else {
                let rgb = image.to_rgb8();
                webp::Encoder::from_rgb(rgb.as_raw(), rgb.width(), rgb.height())
                    .encode(f32::from(quality))
            };
            out.extend_from_slice(&memory);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(width: Option<u32>, height: Option<u32>, resize: Option<Resize>) -> Options {
        Options {
            width,
            height,
            resize,
            ..Options::default()
        }
    }

    #[test]
    fn geometry_as_imgproxy() {
        // cover: scale to fill, crop the rest
        assert_eq!(
            geometry(&opts(Some(100), Some(100), None), 400, 200),
            (200, 100, 100, 100)
        );
        // contain: fit inside
        assert_eq!(
            geometry(&opts(Some(100), Some(100), Some(Resize::Contain)), 400, 200),
            (100, 50, 100, 50)
        );
        // fill: stretch
        assert_eq!(
            geometry(&opts(Some(100), Some(100), Some(Resize::Fill)), 400, 200),
            (100, 100, 100, 100)
        );
        // one side keeps the aspect ratio
        assert_eq!(
            geometry(&opts(Some(100), None, None), 400, 200),
            (100, 50, 100, 50)
        );
        // never enlarged
        assert_eq!(
            geometry(&opts(Some(1000), None, None), 400, 200),
            (400, 200, 400, 200)
        );
        assert_eq!(
            geometry(&opts(Some(1000), Some(100), None), 400, 200),
            (400, 200, 400, 100)
        );
    }

    #[test]
    fn output_negotiation() {
        let none = Options::default();
        assert_eq!(
            choose_output(&none, Output::Png, Some("image/avif,image/webp,*/*")),
            Output::Webp
        );
        assert_eq!(choose_output(&none, Output::Png, Some("*/*")), Output::Png);
        let origin = Options {
            format: Some(Format::Origin),
            ..Options::default()
        };
        assert_eq!(
            choose_output(&origin, Output::Jpeg, Some("image/webp")),
            Output::Jpeg
        );
    }

    #[test]
    fn renders_a_png_to_webp_and_jpeg() {
        let image = DynamicImage::ImageRgb8(image::RgbImage::from_fn(64, 32, |x, y| {
            image::Rgb([x as u8 * 4, y as u8 * 8, 128])
        }));
        let mut png = Vec::new();
        image
            .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
            .unwrap();
        let o = opts(Some(16), Some(16), None);
        let webp = render(&png, &o, Output::Webp, 1 << 20).unwrap();
        assert_eq!(image::guess_format(&webp).unwrap(), ImageFormat::WebP);
        assert_eq!(dimensions(&webp).unwrap(), (16, 16));
        let jpeg = render(&png, &opts(Some(32), None, None), Output::Jpeg, 1 << 20).unwrap();
        assert_eq!(dimensions(&jpeg).unwrap(), (32, 16));
        assert_eq!(
            render(&png, &o, Output::Png, 100),
            Err(RenderError::ResolutionTooLarge)
        );
        assert_eq!(
            render(b"hello", &o, Output::Png, 100),
            Err(RenderError::Unsupported)
        );
    }
}
