//! Hostile files for the tests of every loader (inspection, forms, sealing).
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
        format!("trailer\n<< /Size {size} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n").as_bytes(),
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
