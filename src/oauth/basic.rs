//! Client credentials in HTTP Basic (RFC 6749 section 2.3.1): base64 of `id:secret`, where id
//! and secret are each encoded with `application/x-www-form-urlencoded` before joining. Decoding
//! is strict: a raw `&` or `=`, a `%` not followed by two hex digits, or bytes that are not UTF-8
//! after decoding make the credentials malformed, which the token endpoints refuse with 401
//! `invalid_client` (section 5.2) instead of guessing what the client meant.

use base64::Engine;

/// A client id and secret taken from a Basic header.
#[derive(Clone, PartialEq, Eq)]
pub struct BasicCredentials {
    pub client_id: String,
    pub secret: String,
}

impl std::fmt::Debug for BasicCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BasicCredentials")
            .field("client_id", &self.client_id)
            .field("secret", &"***")
            .finish()
    }
}

/// `None` when `header` is not the Basic scheme; otherwise the credentials or why they are
/// malformed.
pub fn parse(header: &str) -> Option<Result<BasicCredentials, &'static str>> {
    let header = header.trim();
    let (scheme, rest) = header
        .split_once(|c: char| c.is_ascii_whitespace())
        .unwrap_or((header, ""));
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    Some(decode(rest.trim()))
}

fn decode(token: &str) -> Result<BasicCredentials, &'static str> {
    if token.is_empty() {
        return Err("the Basic credentials are empty");
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(token)
        .map_err(|_| "the Basic credentials are not valid base64")?;
    let text = String::from_utf8(bytes).map_err(|_| "the Basic credentials are not UTF-8")?;
    let (id, secret) = text
        .split_once(':')
        .ok_or("the Basic credentials lack the ':' between client id and secret")?;
    Ok(BasicCredentials {
        client_id: form_decode(id).ok_or("the Basic client id is not form-urlencoded")?,
        secret: form_decode(secret).ok_or("the Basic client secret is not form-urlencoded")?,
    })
}

/// One form-urlencoded value: `+` is a space, `%XX` a byte; a raw `&` or `=` (which an encoder
/// always escapes) or a broken escape is refused.
fn form_decode(s: &str) -> Option<String> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'&' | b'=' => return None,
            b'+' => out.push(b' '),
            b'%' => {
                let hi = hex(bytes.next()?)?;
                let lo = hex(bytes.next()?)?;
                out.push(hi << 4 | lo);
            }
            other => out.push(other),
        }
    }
    String::from_utf8(out).ok()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic(plain: &str) -> String {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(plain)
        )
    }

    fn ok(plain: &str) -> (String, String) {
        let c = parse(&basic(plain)).unwrap().unwrap();
        (c.client_id, c.secret)
    }

    #[test]
    fn each_part_is_form_decoded() {
        assert_eq!(ok("my%20id:s%3Acret"), ("my id".into(), "s:cret".into()));
        assert_eq!(ok("a+b:c%2Bd"), ("a b".into(), "c+d".into()));
        assert_eq!(ok("%41bc:%64%65f"), ("Abc".into(), "def".into()));
        // Only the first ':' separates; the secret may hold more.
        assert_eq!(ok("id:a:b"), ("id".into(), "a:b".into()));
        assert_eq!(ok("id:"), ("id".into(), String::new()));
        assert_eq!(ok("%C3%A9:x"), ("é".into(), "x".into()));
        assert!(parse(&basic("id:x")).is_some());
        assert!(parse(&format!("bAsIc  {}", &basic("id:x")[6..])).is_some());
    }

    #[test]
    fn malformed_credentials_are_refused_not_guessed() {
        for plain in [
            "id:SECRET&x=1",
            "id:a=b",
            "id&x=1:secret",
            "i=d:secret",
            "id:%zz",
            "id:%4",
            "id:%",
            "%FF:secret",
            "no colon at all",
        ] {
            assert!(parse(&basic(plain)).unwrap().is_err(), "{plain}");
        }
        assert!(parse("Basic !!!").unwrap().is_err());
        assert!(parse("Basic").unwrap().is_err());
        assert!(parse("Basic ").unwrap().is_err());
        assert!(parse("Bearer abc").is_none());
        assert!(parse("Basicx abc").is_none());
    }

    #[test]
    fn debug_hides_the_secret() {
        let c = parse(&basic("id:topsecret")).unwrap().unwrap();
        assert!(!format!("{c:?}").contains("topsecret"));
    }
}
