//! Rendering PDF pages to PNG images (hayro, pure Rust, on the CPU), for the signing page.
//!
//! A page is scaled to a target pixel width; its height follows from the page's size as a
//! viewer shows it (crop box within the media box, after /Rotate). Pixel sizes are capped, so a
//! hostile page size cannot ask for gigabytes. Every page is rendered under `catch_unwind`: a
//! renderer panic becomes [`PdfError::Damaged`] for that page only.
//!
//! Plain blocking functions; callers run them on `spawn_blocking`. A [`LoadedPdf`] is `Send` and
//! `Sync`; a [`PageRenderer`] holds hayro's per-document cache, which is not `Send`, so create it
//! on the thread that renders.

use std::panic::{self, AssertUnwindSafe};
use std::path::Path;

use hayro::hayro_interpret::{InterpreterSettings, TransformExt};
use hayro::hayro_syntax::page::Page;
use hayro::hayro_syntax::{DecryptionError, LoadPdfError, Pdf};
use hayro::kurbo::Affine;
use hayro::vello_cpu::color::palette::css::WHITE;
use hayro::vello_cpu::{self, Pixmap, RenderContext};
use hayro::{RenderCache, RenderSettings};

use super::PdfError;

/// Widest image we render. The signing page asks for at most 1600 px; this leaves room for
/// other callers while keeping one page's pixels (4 bytes each) within [`MAX_PIXELS`].
pub const MAX_WIDTH_PX: u32 = 4096;

/// Most pixels in one image: 16 Mpx, 64 MiB while rendering. An A4 page at 1600 px wide is
/// 3.6 Mpx. A page taller than this allows at the asked width (a strip many metres long) is
/// scaled down to fit, so its image is narrower than asked.
pub const MAX_PIXELS: u64 = 16 << 20;

/// The renderer's own limit per side (its sizes are `u16`).
const MAX_SIDE_PX: u32 = u16::MAX as u32;

/// A parsed PDF, ready to render. Loading reads the cross-reference data and the page tree once;
/// pages are parsed when rendered.
pub struct LoadedPdf {
    pdf: Pdf,
}

impl LoadedPdf {
    /// Reads and loads the file at `path`.
    pub fn open(path: &Path) -> Result<LoadedPdf, PdfError> {
        LoadedPdf::from_bytes(std::fs::read(path)?)
    }

    /// Loads a PDF held in memory. A file that needs a password is [`PdfError::Encrypted`];
    /// one that opens with the empty user password (owner password only) loads, as in any
    /// viewer (uploads refuse both; see `inspect`).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<LoadedPdf, PdfError> {
        let loaded = panic::catch_unwind(move || Pdf::new(bytes)).map_err(|_| panicked())?;
        let pdf = loaded.map_err(|e| match e {
            LoadPdfError::Decryption(DecryptionError::PasswordProtected) => PdfError::Encrypted,
            LoadPdfError::Decryption(other) => {
                PdfError::Damaged(format!("its encryption is not supported ({other:?})"))
            }
            LoadPdfError::Invalid => PdfError::Damaged("the renderer cannot read it".into()),
        })?;
        if pdf.pages().is_empty() {
            return Err(PdfError::NoPages);
        }
        Ok(LoadedPdf { pdf })
    }

    pub fn page_count(&self) -> usize {
        self.pdf.pages().len()
    }

    /// The page's size in points as a viewer shows it (after crop box and rotation).
    pub fn page_size(&self, page_index: usize) -> Result<(f32, f32), PdfError> {
        Ok(self.page(page_index)?.render_dimensions())
    }

    /// A renderer for this document that reuses fonts and glyphs across pages. Not `Send`.
    pub fn renderer(&self) -> PageRenderer<'_> {
        PageRenderer {
            pdf: self,
            cache: RenderCache::new(),
        }
    }

    fn page(&self, page_index: usize) -> Result<&Page<'_>, PdfError> {
        let pages = self.pdf.pages();
        pages.get(page_index).ok_or(PdfError::NoSuchPage {
            index: page_index,
            pages: pages.len(),
        })
    }
}

/// Renders pages of one [`LoadedPdf`] with one shared cache; see [`LoadedPdf::renderer`].
pub struct PageRenderer<'a> {
    pdf: &'a LoadedPdf,
    cache: RenderCache<'a>,
}

impl<'a> PageRenderer<'a> {
    /// Renders page `page_index` (0-based) `width_px` wide and returns it as a PNG (8-bit RGB
    /// on white). The height keeps the page's aspect ratio; see [`MAX_PIXELS`] for the cap.
    pub fn render(&self, page_index: usize, width_px: u32) -> Result<Vec<u8>, PdfError> {
        if width_px == 0 || width_px > MAX_WIDTH_PX {
            return Err(PdfError::BadWidth(width_px));
        }
        let page = self.pdf.page(page_index)?;
        let rendered = panic::catch_unwind(AssertUnwindSafe(|| {
            let pixmap = self.rasterize(page, width_px);
            pixmap.into_png()
        }));
        match rendered {
            Ok(Ok(png)) => Ok(png),
            Ok(Err(e)) => Err(PdfError::Damaged(format!(
                "its page could not be encoded: {e}"
            ))),
            Err(_) => {
                tracing::warn!(page_index, "the PDF renderer panicked on a page");
                Err(panicked())
            }
        }
    }

    fn rasterize(&self, page: &'a Page<'a>, width_px: u32) -> Pixmap {
        let (w_pt, h_pt) = page.render_dimensions();
        let (width, height) = pixel_size(w_pt, h_pt, width_px);
        // Scale each axis to the whole pixels chosen, so the page fills the image exactly.
        let transform = Affine::scale_non_uniform(
            f64::from(width) / f64::from(w_pt),
            f64::from(height) / f64::from(h_pt),
        ) * page.initial_transform(true).to_kurbo();
        let mut ctx = RenderContext::new(width, height);
        hayro::render_into(
            page,
            &self.cache,
            &InterpreterSettings::default(),
            &RenderSettings::default(),
            &mut ctx,
            transform,
        );
        ctx.flush();
        let mut pixmap = Pixmap::new(width, height);
        ctx.render_with(
            &mut pixmap,
            &mut vello_cpu::Resources::default(),
            vello_cpu::RasterizerSettings {
                target_init: vello_cpu::TargetInit::Clear(WHITE),
                ..Default::default()
            },
        );
        pixmap
    }
}

/// Renders one page of a loaded PDF; see [`PageRenderer::render`]. To render several pages of
/// one document, use [`LoadedPdf::renderer`] or [`render_all`], which share fonts and glyphs.
pub fn render_page(pdf: &LoadedPdf, page_index: usize, width_px: u32) -> Result<Vec<u8>, PdfError> {
    pdf.renderer().render(page_index, width_px)
}

/// Renders every page, in order, with one shared cache. A page that fails gives its error in
/// its place; the others are still rendered.
pub fn render_all(pdf: &LoadedPdf, width_px: u32) -> Vec<Result<Vec<u8>, PdfError>> {
    let renderer = pdf.renderer();
    (0..pdf.page_count())
        .map(|index| renderer.render(index, width_px))
        .collect()
}

/// The image size for a page of `w_pt` x `h_pt` points at `width_px` wide: the height keeps
/// the aspect ratio (rounded, at least 1), and both shrink together when the image would
/// exceed [`MAX_PIXELS`] or the renderer's side limit.
fn pixel_size(w_pt: f32, h_pt: f32, width_px: u32) -> (u16, u16) {
    let (w_pt, h_pt) = (f64::from(w_pt.max(1.0)), f64::from(h_pt.max(1.0)));
    let mut width = f64::from(width_px);
    let mut height = width * h_pt / w_pt;
    let max_height = (MAX_PIXELS as f64 / width).min(f64::from(MAX_SIDE_PX));
    if height > max_height {
        width *= max_height / height;
        height = max_height;
    }
    let side = |v: f64| v.round().clamp(1.0, f64::from(MAX_SIDE_PX)) as u16;
    (side(width), side(height))
}

fn panicked() -> PdfError {
    PdfError::Damaged("it is malformed in a way the renderer cannot handle".into())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use lopdf::{Document, Object, dictionary};

    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pdf")
            .join(name)
    }

    fn load(name: &str) -> LoadedPdf {
        LoadedPdf::open(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e:?}"))
    }

    /// A decoded PNG: width, height and one grey level (0..=255) per pixel.
    struct Image {
        width: u32,
        height: u32,
        grey: Vec<u8>,
    }

    impl Image {
        fn decode(png_bytes: &[u8]) -> Image {
            let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
            let mut reader = decoder.read_info().expect("a PNG header");
            let mut buf = vec![0; reader.output_buffer_size().unwrap()];
            let info = reader.next_frame(&mut buf).expect("PNG image data");
            assert_eq!(info.bit_depth, png::BitDepth::Eight);
            let channels = info.color_type.samples();
            let grey = buf[..info.buffer_size()]
                .chunks(channels)
                .map(|px| match px {
                    [r, g, b, ..] => ((u32::from(*r) + u32::from(*g) + u32::from(*b)) / 3) as u8,
                    [v, ..] => *v,
                    [] => unreachable!(),
                })
                .collect();
            Image {
                width: info.width,
                height: info.height,
                grey,
            }
        }

        /// Share of pixels darker than mid-grey.
        fn dark_share(&self) -> f64 {
            let dark = self.grey.iter().filter(|&&v| v < 128).count();
            dark as f64 / self.grey.len() as f64
        }
    }

    /// The image has the asked width and the page's aspect ratio (to rounding).
    fn assert_shape(image: &Image, width: u32, (w_pt, h_pt): (f32, f32), what: &str) {
        assert_eq!(image.width, width, "{what}: width");
        let expected = f64::from(width) * f64::from(h_pt) / f64::from(w_pt);
        assert!(
            (f64::from(image.height) - expected).abs() <= 1.0,
            "{what}: height {} for a {w_pt}x{h_pt} page, expected about {expected:.1}",
            image.height
        );
    }

    /// Looks like a page of text: some dark pixels, mostly white paper.
    fn assert_has_ink(image: &Image, what: &str) {
        let share = image.dark_share();
        assert!(
            (0.002..0.5).contains(&share),
            "{what}: {:.4} of the pixels are dark",
            share
        );
    }

    #[test]
    fn every_page_has_the_width_asked_and_the_pages_shape() {
        let cases: &[(&str, &[(f32, f32)])] = &[
            ("a4-1p.pdf", &[(595.0, 842.0)]),
            (
                "rotated-4p.pdf",
                &[
                    (842.0, 595.0),
                    (595.0, 842.0),
                    (842.0, 595.0),
                    (595.0, 842.0),
                ],
            ),
            (
                "mixed-sizes-3p.pdf",
                &[(595.0, 842.0), (420.0, 595.0), (612.0, 792.0)],
            ),
            ("signed-2rev.pdf", &[(595.0, 842.0)]),
            ("bad-xref-offsets.pdf", &[(595.0, 842.0)]),
        ];
        for (name, sizes) in cases {
            let pdf = load(name);
            assert_eq!(pdf.page_count(), sizes.len(), "{name}: pages");
            let pages = render_all(&pdf, 800);
            for (index, (png, size)) in pages.into_iter().zip(sizes.iter()).enumerate() {
                let what = format!("{name} page {index}");
                let image = Image::decode(&png.unwrap_or_else(|e| panic!("{what}: {e:?}")));
                let (w, h) = pdf.page_size(index).unwrap();
                assert!(
                    (w - size.0).abs() < 1.0 && (h - size.1).abs() < 1.0,
                    "{what}"
                );
                assert_shape(&image, 800, *size, &what);
                assert_has_ink(&image, &what);
            }
        }
    }

    #[test]
    fn rotated_pages_come_out_upright_with_their_sides_swapped() {
        let pdf = load("rotated-4p.pdf");
        let renderer = pdf.renderer();
        let images: Vec<Image> = (0..4)
            .map(|i| Image::decode(&renderer.render(i, 800).unwrap()))
            .collect();
        assert!(images[0].height < 800 && images[2].height < 800);
        assert!(images[1].height > 800 && images[3].height > 800);
    }

    #[test]
    fn rotation_turns_the_content_clockwise() {
        // Content 100 x 50 pt with a square at its top left; /Rotate 90 shows it 50 x 100 with
        // the square at the top right.
        let pdf = LoadedPdf::from_bytes(pdf_with_page(100.0, 50.0, 90)).unwrap();
        let image = Image::decode(&render_page(&pdf, 0, 800).unwrap());
        assert_eq!((image.width, image.height), (800, 1600));
        let at = |x: usize, y: usize| image.grey[y * 800 + x];
        assert!(at(797, 2) < 16, "top right is not black");
        assert_eq!(at(2, 2), 255, "top left is not white");
    }

    #[test]
    fn a_scanned_page_renders_its_image() {
        let pdf = load("scan-3p.pdf");
        let image = Image::decode(&render_page(&pdf, 2, 800).unwrap());
        assert_shape(&image, 800, (595.2, 842.4), "scan page 2");
        assert_has_ink(&image, "scan page 2");
    }

    #[test]
    fn each_allowed_width_is_honoured() {
        let pdf = load("mixed-sizes-3p.pdf");
        for width in [800, 1200, 1600] {
            let image = Image::decode(&render_page(&pdf, 1, width).unwrap());
            assert_shape(&image, width, (420.0, 595.0), "A5 page");
        }
    }

    #[test]
    fn rendering_is_deterministic() {
        let pdf = load("a4-1p.pdf");
        assert_eq!(
            render_page(&pdf, 0, 800).unwrap(),
            load("a4-1p.pdf").renderer().render(0, 800).unwrap()
        );
    }

    #[test]
    fn a_page_past_the_end_is_an_error() {
        let pdf = load("mixed-sizes-3p.pdf");
        let err = render_page(&pdf, 3, 800).unwrap_err();
        assert!(
            matches!(err, PdfError::NoSuchPage { index: 3, pages: 3 }),
            "{err:?}"
        );
        assert_eq!(err.to_string(), "the PDF has no page 4 (it has 3)");
        assert!(matches!(
            pdf.page_size(99),
            Err(PdfError::NoSuchPage { .. })
        ));
    }

    #[test]
    fn widths_outside_the_limits_are_refused() {
        let pdf = load("a4-1p.pdf");
        for width in [0, MAX_WIDTH_PX + 1] {
            let err = render_page(&pdf, 0, width).unwrap_err();
            assert!(
                matches!(err, PdfError::BadWidth(w) if w == width),
                "{err:?}"
            );
        }
    }

    #[test]
    fn password_protected_files_are_encrypted_errors() {
        for name in ["encrypted-aes256.pdf", "encrypted-rc4.pdf"] {
            let err = LoadedPdf::open(&fixture(name)).err().unwrap();
            assert!(matches!(err, PdfError::Encrypted), "{name}: {err:?}");
        }
        // One that opens without a password renders, as in any viewer (uploads refuse it).
        let pdf = load("encrypted-owner-only.pdf");
        let image = Image::decode(&render_page(&pdf, 0, 800).unwrap());
        assert_has_ink(&image, "owner-password-only file");
    }

    #[test]
    fn other_files_are_errors_not_panics() {
        for name in ["not-a-pdf-png.pdf", "not-a-pdf-text.pdf", "empty.pdf"] {
            let result = LoadedPdf::open(&fixture(name));
            assert!(
                matches!(result, Err(PdfError::Damaged(_) | PdfError::NoPages)),
                "{name}"
            );
        }
        let missing = LoadedPdf::open(&fixture("does-not-exist.pdf"));
        assert!(matches!(missing, Err(PdfError::Io(_))));
    }

    #[test]
    fn garbled_files_never_panic() {
        let original = std::fs::read(fixture("a4-1p.pdf")).unwrap();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for round in 0..40 {
            let mut bytes = original.clone();
            for _ in 0..=round {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let at = (seed % bytes.len() as u64) as usize;
                bytes[at] = (seed >> 32) as u8;
            }
            if let Ok(pdf) = LoadedPdf::from_bytes(bytes) {
                // Any outcome but a panic escaping is fine.
                let _ = render_all(&pdf, 200);
            }
        }
    }

    /// A one-page PDF whose page is `w` x `h` points, turned by `rotate`, with a black square
    /// of 1 pt at the top left corner of its content.
    fn pdf_with_page(w: f32, h: f32, rotate: i64) -> Vec<u8> {
        let mut doc = Document::with_version("1.4");
        let pages_id = doc.new_object_id();
        let content = doc.add_object(lopdf::Stream::new(
            dictionary! {},
            format!("0 g 0 {} 1 -1 re f", h).into_bytes(),
        ));
        let page = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "MediaBox" => vec![0.into(), 0.into(), Object::Real(w), Object::Real(h)],
            "Contents" => content,
            "Rotate" => rotate,
        });
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1,
            }),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog);
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    #[test]
    fn hostile_page_sizes_are_capped() {
        // A strip 30 pt wide and 14400 pt (5 m) tall: at 1600 px wide, 1600 x 768000 px.
        let pdf = LoadedPdf::from_bytes(pdf_with_page(30.0, 14400.0, 0)).unwrap();
        let image = Image::decode(&render_page(&pdf, 0, 1600).unwrap());
        assert!(u64::from(image.width) * u64::from(image.height) <= MAX_PIXELS);
        assert!(image.height <= u32::from(u16::MAX) && image.width < 1600);
        // Still the page's shape, shrunk as a whole.
        let ratio = f64::from(image.height) / f64::from(image.width);
        assert!((ratio - 480.0).abs() / 480.0 < 0.02, "ratio {ratio}");

        // A page 14400 pt wide and 1 pt tall is at least one pixel tall.
        let pdf = LoadedPdf::from_bytes(pdf_with_page(14400.0, 1.0, 0)).unwrap();
        let image = Image::decode(&render_page(&pdf, 0, 800).unwrap());
        assert_eq!((image.width, image.height), (800, 1));
    }

    #[test]
    fn pixel_sizes_follow_the_page_and_respect_the_caps() {
        assert_eq!(pixel_size(595.0, 842.0, 800), (800, 1132));
        assert_eq!(pixel_size(842.0, 595.0, 1200), (1200, 848));
        let (w, h) = pixel_size(10.0, 1.0e9, 4096);
        assert!(
            u64::from(w) * u64::from(h) <= MAX_PIXELS && w >= 1,
            "{w}x{h}"
        );
        let (w, h) = pixel_size(0.0, 0.0, 800);
        assert_eq!((w, h), (800, 800));
    }

    #[test]
    fn a_small_drawn_page_puts_ink_where_the_content_says() {
        // The square is at the top left: the first pixel is black, the last white.
        let pdf = LoadedPdf::from_bytes(pdf_with_page(100.0, 100.0, 0)).unwrap();
        let image = Image::decode(&render_page(&pdf, 0, 800).unwrap());
        assert_eq!((image.width, image.height), (800, 800));
        assert!(image.grey[800 * 2 + 2] < 16, "top left is not black");
        assert_eq!(
            *image.grey.last().unwrap(),
            255,
            "bottom right is not white"
        );
    }
}
