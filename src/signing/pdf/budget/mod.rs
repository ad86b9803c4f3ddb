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

mod lexer;
mod load;
pub(in crate::signing::pdf) use lexer::*;
pub use load::*;

#[cfg(test)]
pub(crate) mod hostile;
#[cfg(test)]
mod tests;

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
