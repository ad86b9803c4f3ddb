//! S3 errors as one line: the XML body an S3 server sends with a refusal (a wrong credential,
//! a missing bucket) is reduced to its `Code` and `Message`, so a start error or a log entry
//! stays one line, as operators and log collectors expect.

/// `text` with each S3 `<Error>` document in it replaced by `Code: Message`, and any other
/// line break turned into a space.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((start, end)) = error_document(rest) {
        out.push_str(&rest[..start]);
        out.push_str(&summary(&rest[start..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where the first `<Error>...</Error>` document of `text` starts (at its `<?xml` declaration
/// when it has one) and ends.
fn error_document(text: &str) -> Option<(usize, usize)> {
    let open = text.find("<Error>")?;
    let close = open + text[open..].find("</Error>")? + "</Error>".len();
    let start = text[..open]
        .rfind("<?xml")
        .filter(|&decl| {
            let between = &text[decl..open];
            between
                .find("?>")
                .is_some_and(|end| between[end + 2..].trim().is_empty())
        })
        .unwrap_or(open);
    Some((start, close))
}

/// `Code: Message` of one error document, either alone when the other is missing.
fn summary(document: &str) -> String {
    let code = element(document, "Code");
    let message = element(document, "Message");
    match (code, message) {
        (Some(c), Some(m)) => format!("{c}: {m}"),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => "an S3 error without a code".into(),
    }
}

/// The text of the first `<name>` element, its XML escapes undone.
fn element(document: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let from = document.find(&open)? + open.len();
    let to = from + document[from..].find(&format!("</{name}>"))?;
    Some(unescape(document[from..to].trim()))
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Garage answered a list with an unknown access key (its body verbatim: the XML
    /// declaration on a line of its own), as object_store reports it.
    const GARAGE_403: &str = "Generic S3 error: Error performing list request: Error performing GET http://127.0.0.1:3900/docket-blobs?list-type=2&prefix=n1%2F in 2.1ms - Server returned non-2xx status code: 403 Forbidden: <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code><Message>Forbidden: No such key: GK0123456789abcdef01234567</Message><Resource>/docket-blobs</Resource><Region>garage</Region></Error>";

    /// AWS's answer to a bad secret key, with an escaped character in its message.
    const AWS_403: &str = "Server returned non-2xx status code: 403 Forbidden: <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key &amp; signing method.</Message><AWSAccessKeyId>AKIAEXAMPLE</AWSAccessKeyId><RequestId>4442587FB7D0A2F9</RequestId></Error>\n";

    #[test]
    fn an_s3_error_body_becomes_its_code_and_message_on_the_same_line() {
        let line = one_line(GARAGE_403);
        assert_eq!(
            line,
            "Generic S3 error: Error performing list request: Error performing GET \
             http://127.0.0.1:3900/docket-blobs?list-type=2&prefix=n1%2F in 2.1ms - Server \
             returned non-2xx status code: 403 Forbidden: AccessDenied: Forbidden: No such key: \
             GK0123456789abcdef01234567"
        );
        let line = one_line(AWS_403);
        assert_eq!(
            line,
            "Server returned non-2xx status code: 403 Forbidden: SignatureDoesNotMatch: The \
             request signature we calculated does not match the signature you provided. Check \
             your key & signing method."
        );
        assert!(!line.contains("RequestId") && !line.contains('<'), "{line}");
    }

    #[test]
    fn text_without_an_error_document_only_loses_its_line_breaks() {
        assert_eq!(one_line("connection refused"), "connection refused");
        assert_eq!(one_line("a\r\nb\n  c"), "a b c");
        assert_eq!(
            one_line("<Error><Code>NoSuchBucket</Code></Error>"),
            "NoSuchBucket"
        );
        // An unclosed document is left as it came, on one line.
        assert_eq!(one_line("x: <Error>\n<Code>A"), "x: <Error> <Code>A");
    }
}
