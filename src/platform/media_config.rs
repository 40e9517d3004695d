//! Where media copies are kept (`MEDIA_DIR`, or `MEDIA_S3_*` for an S3-compatible bucket) and how
//! large a copied file may be (`MEDIA_MAX_BYTES`), checked at start-up with messages naming the
//! setting.
use crate::platform::config::{var, Problems};
use std::path::PathBuf;

/// Twilio accepts at most 5 MB of media on a message; a larger file is not copied.
pub const DEFAULT_MAX_BYTES: u64 = 5 * 1024 * 1024;

#[derive(Clone, Debug, PartialEq)]
pub struct MediaConfig {
    /// The local folder (`MEDIA_DIR`, default `<HERALD_DATA_DIR>/media`), when no bucket is set.
    pub dir: PathBuf,
    pub s3: Option<S3Config>,
    pub max_bytes: u64,
}

#[derive(Clone, PartialEq)]
pub struct S3Config {
    pub bucket: String,
    /// An S3-compatible service's address (`MEDIA_S3_ENDPOINT`); none: AWS itself.
    pub endpoint: Option<String>,
    pub region: String,
    pub access_key_id: String,
    pub secret_access_key: String,
}

impl std::fmt::Debug for S3Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Config")
            .field("bucket", &self.bucket)
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"<hidden>")
            .finish()
    }
}

impl MediaConfig {
    /// A folder of its own under the system's temporary folder (tests and `Config::for_database`).
    pub fn temporary() -> Self {
        Self {
            dir: std::env::temp_dir().join(format!("herald-media-{}", uuid::Uuid::new_v4())),
            s3: None,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

pub(crate) fn read(problems: &mut Problems) -> MediaConfig {
    let data = var("HERALD_DATA_DIR").unwrap_or_else(|| "data".into());
    let dir = var("MEDIA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(data).join("media"));
    let max_bytes = problems.or(
        match var("MEDIA_MAX_BYTES") {
            None => Ok(DEFAULT_MAX_BYTES),
            Some(v) => match v.parse::<u64>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!(
                    "MEDIA_MAX_BYTES must be a positive number of bytes, not {v:?}"
                )),
            },
        },
        DEFAULT_MAX_BYTES,
    );
    let s3 = match var("MEDIA_S3_BUCKET") {
        None => None,
        Some(bucket) => {
            let mut need = |name: &str| match var(name) {
                Some(v) => v,
                None => {
                    problems.0.push(format!(
                        "MEDIA_S3_BUCKET is set but {name} is not: set it, or unset \
                         MEDIA_S3_BUCKET to keep media in MEDIA_DIR"
                    ));
                    String::new()
                }
            };
            let access_key_id = need("MEDIA_S3_ACCESS_KEY_ID");
            let secret_access_key = need("MEDIA_S3_SECRET_ACCESS_KEY");
            Some(S3Config {
                bucket,
                endpoint: var("MEDIA_S3_ENDPOINT"),
                region: var("MEDIA_S3_REGION").unwrap_or_else(|| "us-east-1".into()),
                access_key_id,
                secret_access_key,
            })
        }
    };
    MediaConfig { dir, s3, max_bytes }
}
