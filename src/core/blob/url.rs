//! `--blob-url`: where blobs live, parsed once (`file`, or `s3://bucket[/prefix]`).

/// Where the blob store keeps committed blobs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum BlobUrl {
    /// `<data>/blobs/`, on this machine.
    #[default]
    File,
    /// An S3-compatible bucket shared by every node; keys are `<prefix>/<xx>/<id>`, the same
    /// layout as the file store's, so `<data>/blobs/` can be copied into a bucket as it is.
    S3 { bucket: String, prefix: String },
}

impl BlobUrl {
    /// `file` (or nothing) or `s3://bucket[/prefix]`. The bucket name follows S3's rules (3-63
    /// lowercase letters, digits, `.` and `-`); the prefix is path segments without `.`, `..`
    /// or empty ones.
    pub fn parse(raw: &str) -> Result<BlobUrl, String> {
        let raw = raw.trim();
        if raw.is_empty() || raw == "file" {
            return Ok(BlobUrl::File);
        }
        let Some(rest) = raw.strip_prefix("s3://") else {
            return Err(format!(
                "{raw:?}: use `file` (the data directory) or `s3://bucket[/prefix]`"
            ));
        };
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(format!(
                "{raw:?}: the URL names no bucket (s3://bucket[/prefix])"
            ));
        }
        let bucket_ok = (3..=63).contains(&bucket.len())
            && bucket
                .bytes()
                .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-'))
            && !bucket.starts_with(['.', '-'])
            && !bucket.ends_with(['.', '-']);
        if !bucket_ok {
            return Err(format!(
                "{raw:?}: {bucket:?} is not a bucket name (3-63 lowercase letters, digits, '.' and '-')"
            ));
        }
        let prefix = prefix.trim_end_matches('/');
        let segments_ok = prefix.is_empty()
            || prefix.split('/').all(|s| {
                !s.is_empty()
                    && s != "."
                    && s != ".."
                    && s.bytes().all(|b| b.is_ascii_graphic() && b != b'\\')
            });
        if !segments_ok {
            return Err(format!(
                "{raw:?}: the prefix after the bucket must be plain path segments (no '.', '..' or '//')"
            ));
        }
        Ok(BlobUrl::S3 {
            bucket: bucket.to_string(),
            prefix: prefix.to_string(),
        })
    }
}

impl std::fmt::Display for BlobUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BlobUrl::File => f.write_str("file"),
            BlobUrl::S3 { bucket, prefix } if prefix.is_empty() => write!(f, "s3://{bucket}"),
            BlobUrl::S3 { bucket, prefix } => write!(f, "s3://{bucket}/{prefix}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_is_the_default() {
        assert_eq!(BlobUrl::parse("file"), Ok(BlobUrl::File));
        assert_eq!(BlobUrl::parse(" "), Ok(BlobUrl::File));
    }

    #[test]
    fn s3_urls_give_bucket_and_prefix() {
        assert_eq!(
            BlobUrl::parse("s3://docket-blobs"),
            Ok(BlobUrl::S3 {
                bucket: "docket-blobs".into(),
                prefix: String::new()
            })
        );
        let u = BlobUrl::parse("s3://docket-blobs/prod/eu/").unwrap();
        assert_eq!(
            u,
            BlobUrl::S3 {
                bucket: "docket-blobs".into(),
                prefix: "prod/eu".into()
            }
        );
        assert_eq!(u.to_string(), "s3://docket-blobs/prod/eu");
    }

    #[test]
    fn bad_urls_say_what_is_wrong() {
        assert!(BlobUrl::parse("s3://").unwrap_err().contains("no bucket"));
        assert!(
            BlobUrl::parse("s3:///prefix")
                .unwrap_err()
                .contains("no bucket")
        );
        assert!(
            BlobUrl::parse("s3://Upper")
                .unwrap_err()
                .contains("bucket name")
        );
        assert!(
            BlobUrl::parse("s3://bkt/../x")
                .unwrap_err()
                .contains("prefix")
        );
        assert!(
            BlobUrl::parse("s3://bkt/a//b")
                .unwrap_err()
                .contains("prefix")
        );
        assert!(
            BlobUrl::parse("gs://bkt")
                .unwrap_err()
                .contains("s3://bucket")
        );
        assert!(BlobUrl::parse("/var/blobs").is_err());
    }
}
