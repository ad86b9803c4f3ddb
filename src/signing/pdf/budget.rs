//! The complexity budget of one PDF file, checked before lopdf builds any object from it.
//!
//! lopdf turns every value of a file (number, name, string, array, dictionary) into a heap
//! object of some 100 bytes, and inflates object streams eagerly while loading. A 33 KB upload
//! whose object stream inflates to 32 MiB of `[]` therefore became 16 million arrays and two
//! gigabytes of memory. [`prescan`] lexes the raw file and the inflated object streams without
//! building anything, counting values, measuring the nesting of arrays and dictionaries, and
//! measuring what every compressed stream inflates to with a streaming decoder that stops at the
//! remaining budget, so a file over budget is refused in bounded memory and time.
//!
//! The count is an upper bound on what one load builds, with one exception: cross-reference
//! entries may name the same object (or object stream) many times, and lopdf then parses it
//! again for each. [`LoadBudget`] covers that: it counts, through lopdf's object filter, every
//! value lopdf actually keeps during the loads of one check, and drops the rest once the budget
//! is spent, which then refuses the file the same way.

use std::cell::Cell;

use flate2::{Decompress, FlushDecompress, Status};
use lopdf::{Object, ObjectId};

/// Most values (numbers, names, strings, arrays, dictionaries, keywords) in a file, counted
/// in its raw bytes outside streams and in its inflated object streams; also the most lopdf
/// may build across the loads of one check. Real documents hold tens of thousands (the
/// 120-page fixture about 6,000); lopdf needs about 100 to 200 bytes per value.
pub const MAX_VALUES: u64 = 1_000_000;

/// Deepest nesting of arrays and dictionaries within one another. Real files nest under ten
/// levels; lopdf's parser gives up past 100 and then silently drops the object.
pub const MAX_DEPTH: u32 = 64;

/// Most bytes all of a file's compressed streams (any whose filters start with
/// `FlateDecode`, and object and cross-reference streams whatever their filters) may inflate
/// to, together.
pub const MAX_DECODED_BYTES: u64 = 1 << 30;

/// Which budget a file exceeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exceeded {
    Values,
    Depth,
    DecodedBytes,
}

impl std::fmt::Display for Exceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exceeded::Values => write!(
                f,
                "it holds more than {MAX_VALUES} values (numbers, names, strings, arrays, \
                 dictionaries)"
            ),
            Exceeded::Depth => write!(
                f,
                "its arrays or dictionaries are nested more than {MAX_DEPTH} levels deep"
            ),
            Exceeded::DecodedBytes => write!(
                f,
                "its compressed parts expand to more than {} MiB",
                MAX_DECODED_BYTES >> 20
            ),
        }
    }
}

/// What [`prescan`] measured in a file within budget.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Measure {
    pub values: u64,
    pub depth: u32,
    pub decoded_bytes: u64,
    /// A trailer or cross-reference stream names an /Encrypt dictionary.
    pub encrypted: bool,
}

/// Measures the file against the budgets; see the module documentation.
pub fn prescan(bytes: &[u8]) -> Result<Measure, Exceeded> {
    scan(bytes, None).map(|scan| scan.measure)
}

/// [`prescan`], and where the `/Length` keys of the large streams the check can hide from
/// lopdf lie (see [`super::bulk`]).
pub(super) fn prescan_bulk(bytes: &[u8]) -> Result<(Measure, Vec<usize>), Exceeded> {
    let scan = scan(bytes, Some(Vec::new()))?;
    Ok((scan.measure, scan.bulk.unwrap_or_default()))
}

/// The raw file scanned, listing the streams that can be hidden when `bulk` is a list.
fn scan(bytes: &[u8], bulk: Option<Vec<usize>>) -> Result<Scan, Exceeded> {
    let mut scan = Scan {
        measure: Measure::default(),
        buf: vec![0; 64 << 10],
        bulk,
    };
    scan.raw(bytes)?;
    Ok(scan)
}

struct Scan {
    measure: Measure,
    /// The streaming decoder's output window.
    buf: Vec<u8>,
    /// The `/Length` keys of the streams that can be hidden, in file order, when asked for
    /// (only the upload check hides streams).
    bulk: Option<Vec<usize>>,
}

impl Scan {
    fn add_values(&mut self, n: u64) -> Result<(), Exceeded> {
        self.measure.values += n;
        if self.measure.values > MAX_VALUES {
            return Err(Exceeded::Values);
        }
        Ok(())
    }

    fn note_depth(&mut self, depth: u32) -> Result<(), Exceeded> {
        self.measure.depth = self.measure.depth.max(depth);
        if depth > MAX_DEPTH {
            return Err(Exceeded::Depth);
        }
        Ok(())
    }

    fn add_decoded(&mut self, n: usize) -> Result<(), Exceeded> {
        self.measure.decoded_bytes += n as u64;
        if self.measure.decoded_bytes > MAX_DECODED_BYTES {
            return Err(Exceeded::DecodedBytes);
        }
        Ok(())
    }

    /// Feeds `chunk` to `lexer`, counting what it finds.
    fn lex(&mut self, lexer: &mut Lexer, chunk: &[u8]) -> Result<(), Exceeded> {
        for &b in chunk {
            let step = lexer.push(b);
            if step.started {
                self.add_values(1)?;
            }
            if step.opened {
                self.note_depth(lexer.depth)?;
            }
        }
        Ok(())
    }

    /// The raw file: values outside streams, and every stream's data measured by its kind.
    fn raw(&mut self, bytes: &[u8]) -> Result<(), Exceeded> {
        let mut lexer = Lexer::default();
        // Where the last dictionary at the top level started and ended.
        let mut dict_start = 0;
        let mut last_dict: Option<(usize, usize)> = None;
        // The dictionary right before the token being read, if any.
        let mut before_token: Option<(usize, usize)> = None;
        let mut after_trailer = false;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            let depth_before = lexer.depth;
            let step = lexer.push(b);
            if step.word_ended {
                match lexer.word() {
                    b"stream" => {
                        if let Some((start, end)) = before_token.take() {
                            let data = data_start(bytes, i);
                            let info = DictInfo::read(&bytes[start..end]);
                            self.measure.encrypted |= info.is_xref && info.encrypt;
                            let data_end = stream_end(bytes, data, info.length);
                            self.stream(&info, &bytes[data.min(data_end)..data_end])?;
                            if let Some(bulk) = &mut self.bulk
                                && let Some(length) = info.length.filter(|_| info.plain_data())
                                && let Some(key) =
                                    super::bulk::length_key(bytes, start..end, i, length)
                            {
                                bulk.push(key);
                            }
                            lexer = Lexer::default();
                            i = data_end;
                            continue;
                        }
                    }
                    b"trailer" => after_trailer = true,
                    _ => {}
                }
            }
            if step.started {
                self.add_values(1)?;
                before_token = last_dict.take();
            }
            if step.opened {
                self.note_depth(lexer.depth)?;
                if depth_before == 0 {
                    dict_start = i.saturating_sub(1);
                }
            }
            if step.closed_dict && lexer.depth == 0 && depth_before == 1 {
                last_dict = Some((dict_start, i + 1));
                if after_trailer {
                    after_trailer = false;
                    self.measure.encrypted |= DictInfo::read(&bytes[dict_start..=i]).encrypt;
                }
            }
            i += 1;
        }
        Ok(())
    }

    /// One stream's data: inflated (and lexed, for an object stream) within the budget.
    fn stream(&mut self, info: &DictInfo, data: &[u8]) -> Result<(), Exceeded> {
        let decoded_by_lopdf = info.is_object_stream || info.is_xref;
        match info.filters.as_slice() {
            [] => {
                if info.is_object_stream {
                    self.lex(&mut Lexer::default(), data)?;
                }
                Ok(())
            }
            [only] if only == b"FlateDecode" => self.inflate(data, info.is_object_stream),
            [first, ..] if first == b"FlateDecode" && !decoded_by_lopdf => {
                self.inflate(data, false)
            }
            _ if decoded_by_lopdf => self.decode_with_lopdf(info, data),
            _ => Ok(()),
        }
    }

    /// Inflates `data` (zlib, or raw deflate when the zlib header is wrong, as lopdf does)
    /// through a fixed window, counting the bytes and lexing them when `lex` is set.
    fn inflate(&mut self, data: &[u8], lex: bool) -> Result<(), Exceeded> {
        let produced = self.inflate_as(data, lex, true)?;
        if produced.is_none() {
            self.inflate_as(data, lex, false)?;
        }
        Ok(())
    }

    /// `None` when the data is not of that format at all (nothing came out before an error).
    fn inflate_as(&mut self, data: &[u8], lex: bool, zlib: bool) -> Result<Option<()>, Exceeded> {
        let mut inflater = Decompress::new(zlib);
        let mut lexer = Lexer::default();
        let mut buf = std::mem::take(&mut self.buf);
        let mut input = data;
        let result = loop {
            let (in_before, out_before) = (inflater.total_in(), inflater.total_out());
            let status = inflater.decompress(input, &mut buf, FlushDecompress::None);
            let consumed = (inflater.total_in() - in_before) as usize;
            let produced = (inflater.total_out() - out_before) as usize;
            input = &input[consumed..];
            if let Err(e) = self.add_decoded(produced) {
                break Err(e);
            }
            if lex && let Err(e) = self.lex(&mut lexer, &buf[..produced]) {
                break Err(e);
            }
            match status {
                Ok(Status::StreamEnd) => break Ok(Some(())),
                Ok(_) if consumed == 0 && produced == 0 => break Ok(Some(())),
                Ok(_) => {}
                Err(_) if inflater.total_out() == 0 => break Ok(None),
                Err(_) => break Ok(Some(())),
            }
        };
        self.buf = buf;
        result
    }

    /// Filters other than a lone FlateDecode on a stream lopdf decodes while loading (rare):
    /// decoded by lopdf itself, bounded by what is left of the budget and by its own
    /// per-stream bound.
    fn decode_with_lopdf(&mut self, info: &DictInfo, data: &[u8]) -> Result<(), Exceeded> {
        let names = info
            .filters
            .iter()
            .map(|f| Object::Name(f.clone()))
            .collect::<Vec<_>>();
        let mut dict = lopdf::Dictionary::new();
        dict.set("Filter", names);
        let stream = lopdf::Stream::new(dict, data.to_vec());
        let left = MAX_DECODED_BYTES.saturating_sub(self.measure.decoded_bytes);
        let limit = usize::try_from(left)
            .unwrap_or(usize::MAX)
            .min(super::inspect::MAX_STREAM_BYTES);
        match stream.decompressed_content_with_limit(limit) {
            Ok(decoded) => {
                self.add_decoded(decoded.len())?;
                if info.is_object_stream {
                    self.lex(&mut Lexer::default(), &decoded)?;
                }
                Ok(())
            }
            Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
                ..
            })) if limit as u64 == left => Err(Exceeded::DecodedBytes),
            // lopdf refuses it the same way when loading.
            Err(_) => Ok(()),
        }
    }
}

/// Where a stream's data starts: after the end-of-line that follows `stream` (`i` is the
/// byte that ended the keyword).
fn data_start(bytes: &[u8], i: usize) -> usize {
    match (bytes.get(i), bytes.get(i + 1)) {
        (Some(b'\r'), Some(b'\n')) => i + 2,
        _ => i + 1,
    }
}

/// Where a stream's data ends: after /Length bytes when `endstream` follows there, else at
/// the next `endstream`, else at the end of the file.
fn stream_end(bytes: &[u8], start: usize, length: Option<usize>) -> usize {
    if start >= bytes.len() {
        return bytes.len();
    }
    if let Some(end) = length.and_then(|l| start.checked_add(l))
        && end <= bytes.len()
    {
        let rest = &bytes[end..];
        let skip = rest.iter().take_while(|b| is_space(**b)).count();
        if rest[skip..].starts_with(b"endstream") {
            return end;
        }
    }
    find(&bytes[start..], b"endstream").map_or(bytes.len(), |at| start + at)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// What a stream's dictionary says about how its data is to be read.
#[derive(Debug, Default)]
struct DictInfo {
    length: Option<usize>,
    filters: Vec<Vec<u8>>,
    is_object_stream: bool,
    is_xref: bool,
    encrypt: bool,
    /// How many /Length keys there are, whatever their values.
    length_keys: u32,
}

impl DictInfo {
    /// One direct /Length, and data lopdf does not decode while loading.
    fn plain_data(&self) -> bool {
        self.length_keys == 1 && !self.is_object_stream && !self.is_xref
    }

    /// Reads the entries of the dictionary `<< ... >>` in `bytes` that matter here; nested
    /// values are skipped. Indirect values (`/Length 5 0 R`) count as absent.
    fn read(bytes: &[u8]) -> DictInfo {
        let tokens = tokens(bytes);
        let mut info = DictInfo::default();
        let mut at = 0;
        // The outer `<<`.
        if !matches!(tokens.first(), Some((Tok::Open, _))) {
            return info;
        }
        at += 1;
        while let Some((tok, depth)) = tokens.get(at) {
            if *depth != 1 {
                at += 1;
                continue;
            }
            let Tok::Name(key) = tok else {
                at += 1;
                continue;
            };
            let value = tokens.get(at + 1).map(|(t, _)| t);
            let is_ref = matches!(tokens.get(at + 3), Some((Tok::Word(w), _)) if w == b"R");
            if key == b"Length" {
                info.length_keys += 1;
            }
            match (key.as_slice(), value) {
                (b"Type", Some(Tok::Name(v))) => {
                    info.is_object_stream = v == b"ObjStm";
                    info.is_xref = v == b"XRef";
                }
                (b"Length", Some(Tok::Word(w))) if !is_ref => {
                    info.length = std::str::from_utf8(w).ok().and_then(|s| s.parse().ok());
                }
                (b"Filter", Some(Tok::Name(v))) => info.filters = vec![v.clone()],
                (b"Filter", Some(Tok::Open)) => {
                    info.filters = tokens[at + 2..]
                        .iter()
                        .take_while(|(t, _)| !matches!(t, Tok::Close))
                        .filter_map(|(t, _)| match t {
                            Tok::Name(n) => Some(n.clone()),
                            _ => None,
                        })
                        .collect();
                }
                (b"Encrypt", _) => info.encrypt = true,
                _ => {}
            }
            at += 2;
        }
        info
    }
}

#[derive(Debug, PartialEq)]
enum Tok {
    Name(Vec<u8>),
    Word(Vec<u8>),
    Open,
    Close,
    Other,
}

/// The tokens of `bytes` with the nesting depth each starts at (after an opening bracket
/// is counted). Names are kept raw (`#xx` escapes are not decoded).
fn tokens(bytes: &[u8]) -> Vec<(Tok, u32)> {
    let mut lexer = Lexer::default();
    let mut out: Vec<(Tok, u32)> = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().chain(b" ").enumerate() {
        let depth_before = lexer.depth;
        let state_before = lexer.state;
        let step = lexer.push(b);
        if state_before == State::Name && (lexer.state != State::Name || step.started) {
            out.push((Tok::Name(bytes[start + 1..i].to_vec()), depth_before));
        }
        if step.word_ended {
            out.push((Tok::Word(lexer.word().to_vec()), depth_before));
        }
        if lexer.depth < depth_before {
            out.push((Tok::Close, lexer.depth));
        }
        if step.started {
            start = i;
            if step.opened {
                out.push((Tok::Open, lexer.depth));
            } else if lexer.state != State::Name && lexer.state != State::Word {
                out.push((Tok::Other, lexer.depth));
            }
        }
    }
    out
}

/// A PDF lexer fed one byte at a time (so inflated data can be lexed as it comes out),
/// reporting where values start and how deep arrays and dictionaries nest.
#[derive(Debug, Default)]
struct Lexer {
    state: State,
    depth: u32,
    word: [u8; 16],
    word_len: usize,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    #[default]
    Space,
    Comment,
    Name,
    Word,
    Literal {
        open: u32,
        escaped: bool,
    },
    Hex,
    /// After one `<`.
    Lt,
    /// After one `>` outside a hex string.
    Gt,
}

/// What one byte did.
#[derive(Debug, Default, Clone, Copy)]
struct Step {
    /// A value (or keyword) started.
    started: bool,
    /// An array or dictionary opened (`depth` is its depth).
    opened: bool,
    /// A dictionary closed.
    closed_dict: bool,
    /// A regular word (number or keyword) ended; see [`Lexer::word`].
    word_ended: bool,
}

pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b'\0' | b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

pub(super) fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

impl Lexer {
    /// The word that just ended (its first 16 bytes).
    fn word(&self) -> &[u8] {
        &self.word[..self.word_len]
    }

    fn push(&mut self, b: u8) -> Step {
        let mut step = Step::default();
        match self.state {
            State::Comment => {
                if b == b'\r' || b == b'\n' {
                    self.state = State::Space;
                }
            }
            State::Literal { open, escaped } => {
                self.state = match (b, escaped) {
                    (_, true) => State::Literal {
                        open,
                        escaped: false,
                    },
                    (b'\\', false) => State::Literal {
                        open,
                        escaped: true,
                    },
                    (b'(', false) => State::Literal {
                        open: open + 1,
                        escaped: false,
                    },
                    (b')', false) if open == 1 => State::Space,
                    (b')', false) => State::Literal {
                        open: open - 1,
                        escaped: false,
                    },
                    _ => State::Literal { open, escaped },
                };
            }
            State::Hex => {
                if b == b'>' {
                    self.state = State::Space;
                }
            }
            State::Lt => {
                if b == b'<' {
                    self.state = State::Space;
                    self.depth += 1;
                    step.started = true;
                    step.opened = true;
                } else {
                    // A hex string; its start was not counted yet.
                    step.started = true;
                    self.state = if b == b'>' { State::Space } else { State::Hex };
                }
            }
            State::Gt => {
                self.state = State::Space;
                if b == b'>' {
                    self.depth = self.depth.saturating_sub(1);
                    step.closed_dict = true;
                } else {
                    self.space(b, &mut step);
                }
            }
            State::Name => {
                if is_space(b) || is_delimiter(b) {
                    self.state = State::Space;
                    self.space(b, &mut step);
                }
            }
            State::Word => {
                if is_space(b) || is_delimiter(b) {
                    step.word_ended = true;
                    self.state = State::Space;
                    self.space(b, &mut step);
                } else if self.word_len < self.word.len() {
                    self.word[self.word_len] = b;
                    self.word_len += 1;
                } else {
                    // Longer than any keyword that matters: never matches one.
                    self.word[0] = 0;
                }
            }
            State::Space => self.space(b, &mut step),
        }
        step
    }

    /// `b` read between tokens.
    fn space(&mut self, b: u8, step: &mut Step) {
        match b {
            _ if is_space(b) => {}
            b'%' => self.state = State::Comment,
            b'(' => {
                step.started = true;
                self.state = State::Literal {
                    open: 1,
                    escaped: false,
                };
            }
            b'<' => self.state = State::Lt,
            b'>' => self.state = State::Gt,
            b'[' => {
                step.started = true;
                step.opened = true;
                self.depth += 1;
            }
            b']' => self.depth = self.depth.saturating_sub(1),
            b'/' => {
                step.started = true;
                self.state = State::Name;
            }
            b')' | b'{' | b'}' => {}
            _ => {
                step.started = true;
                self.state = State::Word;
                self.word[0] = b;
                self.word_len = 1;
            }
        }
    }
}

thread_local! {
    /// Values lopdf may still keep in the current check on this thread; `None` outside one.
    static LEFT: Cell<Option<u64>> = const { Cell::new(None) };
    static SPENT: Cell<bool> = const { Cell::new(false) };
}

/// The budget of values lopdf may build during the loads of one check on this thread (see
/// the module documentation). Loads made while it lives pass [`LoadBudget::filter`] to
/// lopdf; dropping it ends the check.
pub struct LoadBudget(());

impl LoadBudget {
    pub fn start() -> LoadBudget {
        LEFT.with(|l| l.set(Some(MAX_VALUES)));
        SPENT.with(|s| s.set(false));
        LoadBudget(())
    }

    /// True once lopdf was refused a value: the loaded documents are incomplete.
    pub fn spent(&self) -> bool {
        SPENT.with(Cell::get)
    }

    /// lopdf's object filter: keeps an object while the budget lasts, then drops every
    /// further one (an object stream then is not even inflated).
    pub fn filter(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
        let Some(left) = LEFT.with(Cell::get) else {
            // No check under way on this thread: lopdf runs on the caller's thread only, so
            // this is a load outside a check; keep everything.
            return Some((id, kept(object)));
        };
        let cost = count_values(object, 0);
        if SPENT.with(Cell::get) || cost > left {
            SPENT.with(|s| s.set(true));
            LEFT.with(|l| l.set(Some(0)));
            return None;
        }
        LEFT.with(|l| l.set(Some(left - cost)));
        Some((id, kept(object)))
    }
}

impl Drop for LoadBudget {
    fn drop(&mut self) {
        LEFT.with(|l| l.set(None));
        SPENT.with(|s| s.set(false));
    }
}

/// What the filter hands back. lopdf keeps its own `object` for objects read directly from
/// the file and uses the returned one for members of object streams, which are never
/// streams; so a stream needs no copy.
fn kept(object: &Object) -> Object {
    match object {
        Object::Stream(_) => Object::Null,
        other => other.clone(),
    }
}

/// Values in `object`, itself included (lopdf nests at most 100 levels).
fn count_values(object: &Object, depth: u32) -> u64 {
    if depth > 128 {
        return 1;
    }
    1 + match object {
        Object::Array(items) => items.iter().map(|o| count_values(o, depth + 1)).sum(),
        Object::Dictionary(dict) => dict
            .iter()
            .map(|(_, v)| 1 + count_values(v, depth + 1))
            .sum(),
        Object::Stream(stream) => stream
            .dict
            .iter()
            .map(|(_, v)| 1 + count_values(v, depth + 1))
            .sum(),
        _ => 0,
    }
}

/// Hostile files for the tests of every loader (inspection, forms, sealing).
#[cfg(test)]
pub(crate) mod hostile {
    use std::io::Write;

    /// One page (objects 1 to 3), then `extra` objects numbered from 4, with a
    /// cross-reference table whose entries 4.. are `xref_extra` offsets into the file when
    /// given (index into `extra`), else each object's own.
    pub fn pdf_with(extra: &[Vec<u8>], count: u32, xref_extra: Option<&[usize]>) -> Vec<u8> {
        let mut objects: Vec<Vec<u8>> = vec![
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            format!("<< /Type /Pages /Kids [3 0 R] /Count {count} >>").into_bytes(),
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".to_vec(),
        ];
        objects.extend(extra.iter().cloned());
        let mut out = b"%PDF-1.5\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        if let Some(targets) = xref_extra {
            let own = offsets.clone();
            offsets.truncate(3);
            offsets.extend(targets.iter().map(|&t| own[3 + t]));
        }
        let xref = out.len();
        let size = offsets.len() + 1;
        out.extend_from_slice(format!("xref\n0 {size}\n0000000000 65535 f \n").as_bytes());
        for offset in offsets {
            out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
        }
        out.extend_from_slice(
            format!("trailer\n<< /Size {size} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n")
                .as_bytes(),
        );
        out
    }

    /// An object stream holding object `number`: `body`, deflated.
    pub fn object_stream(number: u32, body: &[u8]) -> Vec<u8> {
        let header = format!("{number} 0 ");
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(header.as_bytes()).unwrap();
        z.write_all(body).unwrap();
        let data = z.finish().unwrap();
        let mut out = format!(
            "<< /Type /ObjStm /N 1 /First {} /Filter /FlateDecode /Length {} >>\nstream\n",
            header.len(),
            data.len()
        )
        .into_bytes();
        out.extend_from_slice(&data);
        out.extend_from_slice(b"\nendstream");
        out
    }

    /// One array of `n` empty arrays.
    pub fn empty_arrays(n: usize) -> Vec<u8> {
        let mut body = vec![b'['];
        body.extend(std::iter::repeat_n(*b"[]", n).flatten());
        body.push(b']');
        body
    }

    /// Arrays nested `depth` levels, each also holding a number.
    pub fn nested(depth: usize) -> Vec<u8> {
        let mut body = b"[1 ".repeat(depth);
        body.extend(b"]".repeat(depth));
        body
    }
}

#[cfg(test)]
mod tests {
    use super::hostile::*;
    use super::*;
    use crate::{signing::pdf::PdfError, signing::pdf::inspect_bytes};

    #[test]
    fn too_many_values_in_an_object_stream_are_refused_before_loading() {
        let pdf = pdf_with(&[object_stream(5, &empty_arrays(1_100_000))], 1, None);
        assert_eq!(prescan(&pdf), Err(Exceeded::Values));
        let err = inspect_bytes(&pdf).unwrap_err();
        assert!(
            matches!(err, PdfError::TooComplex(Exceeded::Values)),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("the PDF is too complex: it holds more than 1000000 values"),
            "{err}"
        );
    }

    #[test]
    fn deep_nesting_is_refused_with_its_reason() {
        for depth in [65, 90, 100_000] {
            let pdf = pdf_with(&[nested(depth)], 1, None);
            let err = inspect_bytes(&pdf).unwrap_err();
            assert!(
                matches!(err, PdfError::TooComplex(Exceeded::Depth)),
                "{depth}: {err:?}"
            );
        }
        let pdf = pdf_with(&[nested(64)], 1, None);
        assert_eq!(inspect_bytes(&pdf).unwrap().pages, 1);
    }

    #[test]
    fn an_object_stream_named_by_many_entries_is_counted_each_time_lopdf_parses_it() {
        // 400,000 values pass the pre-scan, but five cross-reference entries point at the
        // one object stream and lopdf parses it once for each.
        let stream = object_stream(9, &empty_arrays(400_000));
        let pdf = pdf_with(&[stream], 1, Some(&[0, 0, 0, 0, 0]));
        assert!(prescan(&pdf).unwrap().values < MAX_VALUES);
        let err = inspect_bytes(&pdf).unwrap_err();
        assert!(
            matches!(err, PdfError::TooComplex(Exceeded::Values)),
            "{err:?}"
        );
    }

    #[test]
    fn the_budget_holds_only_during_a_check() {
        let pdf = pdf_with(&[object_stream(5, &empty_arrays(10))], 1, None);
        {
            let budget = LoadBudget::start();
            assert_eq!(inspect_bytes(&pdf).unwrap().pages, 1);
            assert!(!budget.spent());
        }
        assert_eq!(LEFT.with(Cell::get), None);
    }

    #[test]
    fn inflated_bytes_are_bounded_without_inflating_whole_streams() {
        // A stream that is not parsed (a content stream) still counts its inflated bytes.
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut z, &vec![0u8; 8 << 20]).unwrap();
        let data = z.finish().unwrap();
        let mut stream = format!(
            "<< /Filter /FlateDecode /Length {} >>\nstream\n",
            data.len()
        )
        .into_bytes();
        stream.extend_from_slice(&data);
        stream.extend_from_slice(b"\nendstream");
        let pdf = pdf_with(&[stream], 1, None);
        let m = prescan(&pdf).unwrap();
        assert_eq!(m.decoded_bytes, 8 << 20);
    }

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/tests/fixtures/pdf/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn every_fixture_is_well_within_budget() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pdf");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "pdf") {
                continue;
            }
            let m = prescan(&std::fs::read(&path).unwrap()).unwrap();
            println!("{}: {m:?}", path.display());
            assert!(m.values < MAX_VALUES / 20, "{}: {m:?}", path.display());
            assert!(m.depth <= MAX_DEPTH / 4, "{}: {m:?}", path.display());
            assert!(m.decoded_bytes < MAX_DECODED_BYTES / 20);
        }
    }

    #[test]
    fn encryption_is_seen_in_the_trailer() {
        for name in [
            "encrypted-aes256.pdf",
            "encrypted-rc4.pdf",
            "encrypted-owner-only.pdf",
        ] {
            assert!(prescan(&fixture(name)).unwrap().encrypted, "{name}");
        }
        assert!(!prescan(&fixture("a4-1p.pdf")).unwrap().encrypted);
    }

    #[test]
    fn object_streams_are_inflated_and_counted() {
        let m = prescan(&fixture("objstm-3p.pdf")).unwrap();
        assert!(m.decoded_bytes > 0, "{m:?}");
    }

    #[test]
    fn the_lexer_counts_values_and_depth() {
        let mut scan = Scan {
            measure: Measure::default(),
            buf: Vec::new(),
            bulk: None,
        };
        let text = b"1 0 obj << /A [1 2.5 (a(b)c\\)) <0A>] /B <<>> % [[[[\n/C/D>> endobj";
        scan.lex(&mut Lexer::default(), text).unwrap();
        // 1 0 obj << /A [ 1 2.5 (..) <..> /B << /C /D endobj
        assert_eq!(scan.measure.values, 15);
        assert_eq!(scan.measure.depth, 2);
    }

    #[test]
    fn stream_dictionaries_are_read() {
        let info = DictInfo::read(
            b"<< /Type /ObjStm /N 3 /Length 42 /Filter [/FlateDecode] /X << /Length 7 >> >>",
        );
        assert!(info.is_object_stream);
        assert_eq!(info.length, Some(42));
        assert_eq!(info.filters, vec![b"FlateDecode".to_vec()]);
        let info = DictInfo::read(b"<</Length 5 0 R/Filter/FlateDecode/Type/XRef/Encrypt 9 0 R>>");
        assert_eq!(info.length, None);
        assert!(info.is_xref && info.encrypt);
        assert_eq!(info.filters, vec![b"FlateDecode".to_vec()]);
    }
}
