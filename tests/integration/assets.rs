//! The web app's files go out precompressed as the browser asks (brotli, gzip, or as they are),
//! hashed assets are cached for a year as immutable, other files revalidate, and pages and
//! server functions are never stored.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::header::{ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, VARY};
use std::io::Read;

const WASM: &str = "/assets/herald_bg-dxh0a1b2c3d.wasm";

async fn assets_are_precompressed_and_cached(backend: Backend) {
    let public = std::env::temp_dir().join(format!("herald-public-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(public.join("assets")).unwrap();
    let wasm: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(public.join(&WASM[1..]), &wasm).unwrap();
    // The web build writes the brotli copy; these bytes stand for it.
    std::fs::write(public.join(format!("{}.br", &WASM[1..])), b"brotli bytes").unwrap();
    std::fs::write(public.join("manifest.json"), r#"{"name": "Herald"}"#).unwrap();
    let Some(app) = spawn_app_with(
        backend,
        Options {
            public_dir: Some(public.clone()),
            ..Default::default()
        },
    )
    .await
    else {
        return;
    };
    // Herald writes the gzip copies in the background at start-up.
    let gz = public.join(format!("{}.gz", &WASM[1..]));
    for _ in 0..200 {
        if gz.is_file() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(gz.is_file(), "a gzip copy was written");

    let get = |path: &'static str, encodings: Option<&'static str>| {
        let req = app.client.get(app.url(path));
        let req = match encodings {
            Some(e) => req.header(ACCEPT_ENCODING, e),
            None => req,
        };
        async move { req.send().await.unwrap() }
    };
    let header = |res: &reqwest::Response, name| {
        res.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };

    let br = get(WASM, Some("gzip, deflate, br, zstd")).await;
    assert_eq!(br.status(), 200);
    assert_eq!(header(&br, CONTENT_ENCODING), "br");
    assert_eq!(
        header(&br, CACHE_CONTROL),
        "public, max-age=31536000, immutable"
    );
    assert!(header(&br, VARY).to_lowercase().contains("accept-encoding"));
    assert_eq!(br.bytes().await.unwrap().as_ref(), b"brotli bytes");

    let gzip = get(WASM, Some("gzip")).await;
    assert_eq!(header(&gzip, CONTENT_ENCODING), "gzip");
    assert_eq!(
        header(&gzip, CACHE_CONTROL),
        "public, max-age=31536000, immutable"
    );
    let body = gzip.bytes().await.unwrap();
    assert!(
        body.len() < wasm.len() / 4,
        "compressed: {} bytes",
        body.len()
    );
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(body.as_ref())
        .read_to_end(&mut plain)
        .unwrap();
    assert_eq!(plain, wasm, "the gzip copy is the file");

    let identity = get(WASM, None).await;
    assert_eq!(header(&identity, CONTENT_ENCODING), "");
    assert_eq!(identity.bytes().await.unwrap().as_ref(), wasm.as_slice());

    let manifest = get("/manifest.json", Some("gzip, br")).await;
    assert_eq!(manifest.status(), 200);
    assert_eq!(
        header(&manifest, CACHE_CONTROL),
        "no-cache",
        "not hashed: revalidated"
    );

    for page in ["/", "/contacts", "/api/auth/me"] {
        let res = get(page, Some("gzip, br")).await;
        assert_eq!(header(&res, CACHE_CONTROL), "no-store", "{page}");
    }
    let missing = get("/assets/nothing-dxh0a1b2c3d.js", None).await;
    assert_eq!(
        header(&missing, CACHE_CONTROL),
        "no-store",
        "a miss is not cached"
    );
    std::fs::remove_dir_all(public).unwrap();
}

on_both_databases!(assets_are_precompressed_and_cached);
