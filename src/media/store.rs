//! Where media copies live: a folder under the data directory by default, or an S3-compatible
//! bucket (`MEDIA_S3_BUCKET`) that several instances share. Both through `object_store`.
use crate::platform::media_config::MediaConfig;
use object_store::aws::AmazonS3Builder;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use std::sync::Arc;

#[derive(thiserror::Error, Debug)]
pub enum StoreError {
    #[error("the media store is not set up: {0}")]
    Setup(String),
    #[error("the media store failed: {0}")]
    Io(#[from] object_store::Error),
}

#[derive(Clone)]
pub struct MediaStore {
    inner: Arc<dyn ObjectStore>,
    /// "local" or "s3", for logs and /healthz.
    pub kind: &'static str,
}

impl std::fmt::Debug for MediaStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MediaStore")
            .field("kind", &self.kind)
            .finish()
    }
}

impl MediaStore {
    pub fn from_config(config: &MediaConfig) -> Result<Self, StoreError> {
        match &config.s3 {
            Some(s3) => {
                let mut b = AmazonS3Builder::new()
                    .with_bucket_name(&s3.bucket)
                    .with_region(&s3.region)
                    .with_access_key_id(&s3.access_key_id)
                    .with_secret_access_key(&s3.secret_access_key);
                if let Some(endpoint) = &s3.endpoint {
                    // An S3-compatible service (MinIO, R2, …): path-style, http allowed only when
                    // the endpoint says so.
                    b = b
                        .with_endpoint(endpoint)
                        .with_virtual_hosted_style_request(false)
                        .with_allow_http(endpoint.starts_with("http://"));
                }
                let store = b.build().map_err(|e| StoreError::Setup(e.to_string()))?;
                Ok(Self {
                    inner: Arc::new(store),
                    kind: "s3",
                })
            }
            None => {
                std::fs::create_dir_all(&config.dir)
                    .map_err(|e| StoreError::Setup(format!("{}: {e}", config.dir.display())))?;
                let store = LocalFileSystem::new_with_prefix(&config.dir)
                    .map_err(|e| StoreError::Setup(e.to_string()))?;
                Ok(Self {
                    inner: Arc::new(store),
                    kind: "local",
                })
            }
        }
    }

    pub async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        self.inner
            .put(&Path::from(key), PutPayload::from(bytes))
            .await?;
        Ok(())
    }

    pub async fn get(&self, key: &str) -> Result<Vec<u8>, StoreError> {
        let got = self.inner.get(&Path::from(key)).await?;
        Ok(got.bytes().await?.to_vec())
    }

    /// Removes a copy; one already gone is not an error.
    pub async fn delete(&self, key: &str) -> Result<(), StoreError> {
        match self.inner.delete(&Path::from(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

impl crate::platform::AppState {
    /// Where copies of media texted in are kept.
    pub fn media(&self) -> &MediaStore {
        self.part::<std::sync::Arc<MediaStore>>()
    }
}
