//! Decoding pictures within bounds (issue 49 §7): every picture Herald decodes (a thumbnail of
//! one texted in or uploaded, a smaller copy for a model that sees pictures) waits for one of a
//! few places, about one per core, and is refused past a size and allocation limit read from its
//! header before any pixel is decoded. A burst of huge pictures then costs a few decodes' memory
//! at a time, never one per picture.
use std::sync::LazyLock;
use tokio::sync::Semaphore;

/// The longest side decoded, in pixels.
pub const MAX_SIDE: u32 = 12_000;
/// The most pixels decoded: 40 megapixels (a phone camera's picture is 12 to 50).
pub const MAX_PIXELS: u64 = 40_000_000;
/// The most one decode may allocate: 40 megapixels of RGBA.
pub const MAX_ALLOC: u64 = 160 * 1024 * 1024;

/// Decodes at once in this process: the cores, at least one.
static PLACES: LazyLock<Semaphore> = LazyLock::new(|| {
    Semaphore::new(
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
    )
});

/// The picture as a JPEG no larger than `side` on either side, decoded in its turn off the async
/// workers; None when it does not decode within the limits.
pub async fn shrunk(bytes: Vec<u8>, side: u32, quality: u8) -> Option<Vec<u8>> {
    let _place = PLACES.acquire().await.ok()?;
    tokio::task::spawn_blocking(move || shrunk_jpeg(&bytes, side, quality))
        .await
        .ok()
        .flatten()
}

/// The picture's size from its header, if it is one Herald decodes and within the limits.
fn within_limits(bytes: &[u8]) -> Option<(u32, u32)> {
    let (w, h) = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()?;
    let fits = w <= MAX_SIDE && h <= MAX_SIDE && u64::from(w) * u64::from(h) <= MAX_PIXELS;
    fits.then_some((w, h))
}

/// The synchronous decode (callers go through `shrunk`): never enlarged, at most `MAX_ALLOC`.
pub fn shrunk_jpeg(bytes: &[u8], side: u32, quality: u8) -> Option<Vec<u8>> {
    within_limits(bytes)?;
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    let img = reader.decode().ok()?;
    let small = if img.width() > side || img.height() > side {
        img.thumbnail(side, side)
    } else {
        img
    }
    .to_rgb8();
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
        .encode_image(&small)
        .ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        // Written row by row: a huge picture costs the test no more than its file.
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, w, h);
            enc.set_color(png::ColorType::Grayscale);
            enc.set_compression(png::Compression::Fast);
            let mut writer = enc.write_header().unwrap();
            let mut stream = writer.stream_writer().unwrap();
            let row = vec![128u8; w as usize];
            for _ in 0..h {
                std::io::Write::write_all(&mut stream, &row).unwrap();
            }
            stream.finish().unwrap();
        }
        out
    }

    #[test]
    fn a_picture_past_the_limits_is_refused_from_its_header() {
        assert!(shrunk_jpeg(&png(640, 480), 320, 80).is_some());
        let huge = png(9000, 9000);
        assert!(huge.len() < 5 * 1024 * 1024, "{} bytes", huge.len());
        assert_eq!(within_limits(&huge), None, "81 megapixels");
        assert!(shrunk_jpeg(&huge, 320, 80).is_none());
        assert!(
            shrunk_jpeg(&png(13_000, 10), 320, 80).is_none(),
            "a side too long"
        );
        assert!(shrunk_jpeg(b"not a picture", 320, 80).is_none());
    }
}
