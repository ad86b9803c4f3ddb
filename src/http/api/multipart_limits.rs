//! Bounds on a `multipart/form-data` upload, kept on the raw bytes before multer parses them:
//! the whole stream (the upload maximum and a small allowance), each part's headers, the
//! number of parts, every part that is not the file, and the text outside the parts. A body
//! past one of them fails at the piece that crosses it, with a [`Breach`] naming the limit.
//!
//! multer's own limits cannot do this alone: it reads a part's headers with
//! `read_until(b"\r\n\r\n")` over its whole buffer on every poll, without a bound, so a
//! header that never ends is held whole in memory and rescanned (time growing with the square
//! of its size); and it counts only the parts a caller reads. The scan here is incremental: each
//! byte is looked at once, and at most a delimiter's length of it is carried between pieces.

use bytes::Bytes;
use futures_util::{Stream, StreamExt};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Bytes a multipart upload may have beyond the file itself: its delimiters, headers and small
/// fields (a browser's form adds a few hundred).
pub const ALLOWANCE: u64 = 64 * 1024;
/// A part's headers (with the rest of the delimiter line before them) at most.
pub const HEADERS: u64 = 8 * 1024;
/// Parts at most, the file's included.
pub const PARTS: u32 = 16;
/// A part that is not the file (a text field) at most; and the text before the first part or
/// after the last.
pub const FIELD: u64 = 64 * 1024;

/// What a multipart upload may hold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    pub total: u64,
    pub headers: u64,
    pub parts: u32,
    pub field: u64,
}

impl Limits {
    /// The limits of an upload whose file may have `max` bytes.
    pub fn for_upload(max: u64) -> Limits {
        Limits {
            total: max.saturating_add(ALLOWANCE),
            headers: HEADERS,
            parts: PARTS,
            field: FIELD,
        }
    }
}

/// The limit a multipart body went past.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Breach {
    #[error(
        "the multipart body is larger than the {0} bytes allowed (the file's --max-upload-mb and {ALLOWANCE} bytes for the rest of the form)"
    )]
    Total(u64),
    #[error("a part's headers in the multipart body are longer than the {0} bytes allowed")]
    Headers(u64),
    #[error("the multipart body has more than the {0} parts allowed")]
    Parts(u32),
    #[error(
        "a part of the multipart body that is not the file is larger than the {0} bytes allowed"
    )]
    Field(u64),
    #[error(
        "the text before the first part or after the last part of the multipart body is longer than the {0} bytes allowed"
    )]
    Outside(u64),
}

/// `body` as it comes, failing with a boxed [`Breach`] at the first piece past `limits`
/// (then ending); read errors pass through boxed.
pub fn guarded<S, E>(
    body: S,
    boundary: &str,
    limits: Limits,
) -> impl Stream<Item = Result<Bytes, BoxError>> + Send + use<S, E>
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: Into<BoxError>,
{
    let scanner = Scanner::new(boundary, limits);
    futures_util::stream::unfold(Some((Box::pin(body), scanner)), |state| async move {
        let (mut body, mut scanner) = state?;
        match body.next().await? {
            Ok(chunk) => match scanner.feed(&chunk) {
                Ok(()) => Some((Ok(chunk), Some((body, scanner)))),
                Err(breach) => Some((Err(Box::new(breach) as BoxError), None)),
            },
            Err(e) => Some((Err(e.into()), None)),
        }
    })
}

/// Where the scan is in the body.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stage {
    /// Before the first `--boundary`.
    Preamble,
    /// After a delimiter, up to its line's CRLF (`--` there ends the body).
    Line,
    /// A part's headers, up to the blank line.
    Headers,
    /// A part's content, up to the next `\r\n--boundary`.
    Content { file: bool },
    /// After the closing `--boundary--`.
    Epilogue,
}

/// The incremental scan of a multipart body, as multer reads it: the first `--boundary`
/// anywhere, then for each part the rest of the delimiter line, headers up to `\r\n\r\n`, and
/// content up to `\r\n--boundary`.
#[derive(Debug)]
struct Scanner {
    limits: Limits,
    /// `--boundary`, which opens the first part.
    first: Vec<u8>,
    /// `\r\n--boundary`, which ends a part's content.
    next: Vec<u8>,
    stage: Stage,
    /// The end of what was scanned in this stage that may begin its pattern.
    tail: Vec<u8>,
    /// Bytes fed in this region (the delimiter line and headers count as one).
    region: u64,
    /// The first bytes of a delimiter line (up to two).
    opening: Vec<u8>,
    /// The current part's headers.
    head: Vec<u8>,
    parts: u32,
    total: u64,
}

impl Scanner {
    fn new(boundary: &str, limits: Limits) -> Scanner {
        let first = [b"--".as_slice(), boundary.as_bytes()].concat();
        let next = [b"\r\n".as_slice(), &first].concat();
        Scanner {
            limits,
            first,
            next,
            stage: Stage::Preamble,
            tail: Vec::new(),
            region: 0,
            opening: Vec::new(),
            head: Vec::new(),
            parts: 0,
            total: 0,
        }
    }

    /// Scans the next piece of the body.
    fn feed(&mut self, mut chunk: &[u8]) -> Result<(), Breach> {
        self.total += chunk.len() as u64;
        if self.total > self.limits.total {
            return Err(Breach::Total(self.limits.total));
        }
        while !chunk.is_empty() {
            let used = self.step(chunk)?;
            chunk = &chunk[used..];
        }
        Ok(())
    }

    /// Scans the start of `chunk` within the current stage: how many bytes it took.
    fn step(&mut self, chunk: &[u8]) -> Result<usize, Breach> {
        match self.stage {
            Stage::Epilogue => {
                self.region += chunk.len() as u64;
                if self.region > self.limits.field {
                    return Err(Breach::Outside(self.limits.field));
                }
                Ok(chunk.len())
            }
            Stage::Line if self.opening.len() < 2 => {
                self.opening.push(chunk[0]);
                if self.opening == b"--" {
                    self.enter(Stage::Epilogue);
                    return Ok(1);
                }
                self.scan(&chunk[..1])
            }
            _ => self.scan(chunk),
        }
    }

    fn pattern(&self) -> &[u8] {
        match self.stage {
            Stage::Preamble => &self.first,
            Stage::Line => b"\r\n",
            Stage::Headers => b"\r\n\r\n",
            Stage::Content { .. } | Stage::Epilogue => &self.next,
        }
    }

    /// Whether `bytes` (before any pattern) are within the current stage's bound.
    fn check(&self, bytes: u64) -> Result<(), Breach> {
        let l = &self.limits;
        match self.stage {
            Stage::Preamble | Stage::Epilogue if bytes > l.field => Err(Breach::Outside(l.field)),
            Stage::Line | Stage::Headers if bytes > l.headers => Err(Breach::Headers(l.headers)),
            Stage::Content { file: false } if bytes > l.field => Err(Breach::Field(l.field)),
            _ => Ok(()),
        }
    }

    /// Looks for the stage's pattern in `chunk`: up to its end when found (and the next stage
    /// begins), else all of it.
    fn scan(&mut self, chunk: &[u8]) -> Result<usize, Breach> {
        let pattern = self.pattern().to_vec();
        match find_end(&self.tail, chunk, &pattern) {
            Some(end) => {
                // The pattern's bytes carried from earlier pieces were counted then.
                self.check(self.region + end as u64 - pattern.len() as u64)?;
                if self.stage == Stage::Headers {
                    self.head.extend_from_slice(&chunk[..end]);
                }
                self.region += end as u64;
                self.ended()?;
                Ok(end)
            }
            None => {
                let tail = carried(&self.tail, chunk, &pattern);
                self.check(self.region + chunk.len() as u64 - tail.len() as u64)?;
                self.region += chunk.len() as u64;
                self.tail = tail;
                if self.stage == Stage::Headers {
                    self.head.extend_from_slice(chunk);
                }
                Ok(chunk.len())
            }
        }
    }

    /// The current stage's pattern was found.
    fn ended(&mut self) -> Result<(), Breach> {
        match self.stage {
            Stage::Preamble | Stage::Content { .. } => self.enter(Stage::Line),
            Stage::Line => {
                self.parts += 1;
                if self.parts > self.limits.parts {
                    return Err(Breach::Parts(self.limits.parts));
                }
                // The headers count with the delimiter line: the region goes on.
                self.stage = Stage::Headers;
                self.tail.clear();
            }
            Stage::Headers => {
                let file = is_file_part(&self.head);
                self.enter(Stage::Content { file });
            }
            Stage::Epilogue => {}
        }
        Ok(())
    }

    fn enter(&mut self, stage: Stage) {
        self.stage = stage;
        self.tail.clear();
        self.region = 0;
        self.opening.clear();
        self.head = Vec::new();
    }
}

/// Where `pattern` ends in `chunk` (an index into `chunk`), `tail` being the end of what came
/// before that may begin it.
fn find_end(tail: &[u8], chunk: &[u8], pattern: &[u8]) -> Option<usize> {
    if !tail.is_empty() {
        let take = chunk.len().min(pattern.len() - 1);
        let window = [tail, &chunk[..take]].concat();
        if let Some(at) = memchr::memmem::find(&window, pattern) {
            return Some(at + pattern.len() - tail.len());
        }
    }
    memchr::memmem::find(chunk, pattern).map(|at| at + pattern.len())
}

/// The longest end of `tail` and `chunk` together that begins `pattern` (shorter than it),
/// when `pattern` is not in them.
fn carried(tail: &[u8], chunk: &[u8], pattern: &[u8]) -> Vec<u8> {
    let keep = pattern.len() - 1;
    let end: Vec<u8> = if chunk.len() >= keep {
        chunk[chunk.len() - keep..].to_vec()
    } else {
        let joined = [tail, chunk].concat();
        joined[joined.len().saturating_sub(keep)..].to_vec()
    };
    (1..=end.len().min(keep))
        .rev()
        .find(|&k| end[end.len() - k..] == pattern[..k])
        .map(|k| end[end.len() - k..].to_vec())
        .unwrap_or_default()
}

/// Whether a part's headers make it a file part, as `uploads::file_part` decides: a file name
/// in its `Content-Disposition`, or the name `file`. This errs towards a file (a file name in
/// any form or case): a part taken for the file here is still bounded by the whole stream,
/// while a file part taken for a field would be refused.
fn is_file_part(head: &[u8]) -> bool {
    head.split(|&b| b == b'\n').any(|line| {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return false;
        };
        line[..colon]
            .trim_ascii()
            .eq_ignore_ascii_case(b"content-disposition")
            && names_a_file(&line[colon + 1..].to_ascii_lowercase())
    })
}

fn names_a_file(disposition: &[u8]) -> bool {
    memchr::memmem::find(disposition, b"filename").is_some()
        || disposition.split(|&b| b == b';').any(|param| {
            let Some(eq) = param.iter().position(|&b| b == b'=') else {
                return false;
            };
            let value = param[eq + 1..].trim_ascii();
            let value = value.strip_prefix(b"\"").unwrap_or(value);
            let value = value.strip_suffix(b"\"").unwrap_or(value);
            param[..eq].trim_ascii() == b"name" && value == b"file"
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            total: 10_000,
            headers: 100,
            parts: 3,
            field: 50,
        }
    }

    /// `body` fed in pieces of `size` bytes.
    fn feed(body: &[u8], size: usize, limits: Limits) -> Result<Scanner, Breach> {
        let mut s = Scanner::new("xyz", limits);
        for piece in body.chunks(size) {
            s.feed(piece)?;
        }
        Ok(s)
    }

    fn every_split(body: &[u8], limits: Limits) -> Result<(), Breach> {
        let mut outcome = None;
        for size in 1..=body.len() {
            let r = feed(body, size, limits).map(|s| (s.stage, s.parts));
            if let Some(o) = &outcome {
                assert_eq!(&r, o, "pieces of {size}");
            }
            outcome = Some(r);
        }
        outcome.unwrap().map(|_| ())
    }

    const FORM: &[u8] = b"--xyz\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nA title\r\n--xyz\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7 ... \r\n--x \r\n--xy--xyz\r\n--xyz--\r\n";

    #[test]
    fn a_form_passes_in_pieces_of_every_size() {
        every_split(FORM, limits()).unwrap();
        let s = feed(FORM, 7, limits()).unwrap();
        assert_eq!((s.stage, s.parts), (Stage::Epilogue, 2));
    }

    #[test]
    fn delimiters_split_across_pieces_are_found() {
        // The file's content is longer than a field may be: it passes only if the second
        // part is seen as the file, which needs both delimiters found.
        let big = [
            b"--xyz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--xyz\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n".as_slice(),
            &[b'\r'; 80],
            b"\r\n--xy\r\n--xyz--",
        ]
        .concat();
        every_split(&big, limits()).unwrap();
        // Without the CRLF before it, `--xyz` inside content is content.
        let inside =
            b"--xyz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n--xyz--xyz\r\n--xyz--";
        every_split(inside, limits()).unwrap();
        let s = feed(inside, 3, limits()).unwrap();
        assert_eq!((s.stage, s.parts), (Stage::Epilogue, 1));
    }

    #[test]
    fn a_field_past_its_bound_is_refused() {
        let body = [
            b"--xyz\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n".as_slice(),
            &[b'a'; 51],
            b"\r\n--xyz--",
        ]
        .concat();
        assert_eq!(every_split(&body, limits()), Err(Breach::Field(50)));
        // 50 bytes pass, a CR at their end included (it may begin the delimiter).
        let fits = [
            b"--xyz\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n".as_slice(),
            &[b'a'; 49],
            b"\r\r\n--xyz--",
        ]
        .concat();
        every_split(&fits, limits()).unwrap();
    }

    #[test]
    fn a_header_that_never_ends_is_refused_after_the_bound() {
        let mut s = Scanner::new("xyz", limits());
        s.feed(b"--xyz\r\nContent-Disposition: form-data; name=\"a\"; ")
            .unwrap();
        let mut fed = 0;
        let err = loop {
            match s.feed(b"aaaaaaa\r\n") {
                Ok(()) => fed += 9,
                Err(e) => break e,
            }
        };
        assert_eq!(err, Breach::Headers(100));
        assert!(fed <= 100, "{fed}");
        assert!(s.head.len() <= 100 + 3, "{}", s.head.len());
        // The delimiter line counts too.
        let long_line = [b"--xyz".as_slice(), &[b' '; 101], b"\r\n\r\n"].concat();
        assert_eq!(every_split(&long_line, limits()), Err(Breach::Headers(100)));
    }

    #[test]
    fn too_many_parts_are_refused() {
        let part = b"\r\n--xyz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx";
        let three = [&part[2..], &part[..], &part[..], b"\r\n--xyz--"].concat();
        every_split(&three, limits()).unwrap();
        let four = [&part[2..], &part[..], &part[..], &part[..], b"\r\n--xyz--"].concat();
        assert_eq!(every_split(&four, limits()), Err(Breach::Parts(3)));
    }

    #[test]
    fn the_whole_stream_and_the_text_outside_parts_are_bounded() {
        let file = [
            b"--xyz\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n".as_slice(),
            &[b'%'; 10_000],
        ]
        .concat();
        assert_eq!(
            feed(&file, 4096, limits()).err(),
            Some(Breach::Total(10_000))
        );
        let preamble = [[b'p'; 51].as_slice(), b"--xyz--"].concat();
        assert_eq!(every_split(&preamble, limits()), Err(Breach::Outside(50)));
        let epilogue = [b"--xyz--".as_slice(), &[b'e'; 50]].concat();
        every_split(&epilogue, limits()).unwrap();
        let epilogue = [b"--xyz--".as_slice(), &[b'e'; 51]].concat();
        assert_eq!(every_split(&epilogue, limits()), Err(Breach::Outside(50)));
    }

    #[test]
    fn file_parts_are_told_as_uploads_tells_them() {
        for (head, file) in [
            (
                &b"Content-Disposition: form-data; name=\"f\"; filename=\"a.pdf\"\r\n\r\n"[..],
                true,
            ),
            (
                b"content-disposition: form-data; filename*=UTF-8''a.pdf\r\n\r\n",
                true,
            ),
            (
                b"Content-Disposition: form-data; name=\"file\"\r\n\r\n",
                true,
            ),
            (b"Content-Disposition: form-data; name=file\r\n\r\n", true),
            (
                b"Content-Disposition: form-data; name=\"files\"\r\n\r\n",
                false,
            ),
            (
                b"Content-Disposition: form-data; name=\"title\"\r\n\r\n",
                false,
            ),
            (b"X-Note: filename=\"a\"\r\n\r\n", false),
        ] {
            assert_eq!(
                is_file_part(head),
                file,
                "{}",
                String::from_utf8_lossy(head)
            );
        }
    }
}
