//! In Chromium, on a desktop (both databases) and a 390 px phone: pictures in and out. A picture Ada texts in shows in
//! her conversation as a thumbnail of Herald's own copy (issue 28 §3), fetched by the real server
//! binary from a file server on loopback, as the local outbox does.
use crate::harness::*;
use crate::helpers::{sms_params, Backend};
use fantoccini::Locator;

/// Serves one PNG at `/tooth.png` on loopback; answers its URL.
async fn picture_server() -> String {
    let img = image::RgbImage::from_fn(800, 600, |x, y| {
        image::Rgb([(x / 4) as u8, (y / 3) as u8, 160])
    });
    let mut png = std::io::Cursor::new(Vec::new());
    img.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let png = png.into_inner();
    let app = axum::Router::new().route(
        "/tooth.png",
        axum::routing::get(move || {
            let png = png.clone();
            async move { ([(axum::http::header::CONTENT_TYPE, "image/png")], png) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/tooth.png")
}

async fn a_received_picture(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    let url = picture_server().await;
    let mut params = sms_params(
        "SMpicture000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "Is this the tooth you mean?",
    );
    params.retain(|(k, _)| *k != "NumMedia");
    params.extend([
        ("NumMedia", "1"),
        ("MediaUrl0", url.as_str()),
        ("MediaContentType0", "image/png"),
    ]);
    let res = reqwest::Client::new()
        .post(format!("{}/webhooks/twilio/sms", server.base))
        .form(&params)
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    b.open(&format!("{}/messaging", server.base)).await;
    open_conversation(&b, "Ada Lovelace").await;
    b.wait_for_text(".message.inbound .bubble", "Is this the tooth you mean?")
        .await;
    b.wait_for(".message.inbound .media-thumb img").await;
    // The thumbnail loaded: Herald's copy, 320 px on its long side.
    let mut width = 0;
    for _ in 0..100 {
        let v = b
            .client
            .execute(
                "const i = document.querySelector('.media-thumb img'); return i && i.complete ? i.naturalWidth : 0;",
                vec![],
            )
            .await
            .unwrap();
        width = v.as_u64().unwrap_or(0);
        if width > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(width, 320, "the thumbnail is Herald's 320 px copy");
    let link = b
        .client
        .find(Locator::Css(".media-thumb"))
        .await
        .unwrap()
        .attr("href")
        .await
        .unwrap()
        .unwrap();
    assert!(link.starts_with("/media/"), "{link}");
    b.shot(&format!("{tag}-99-received-picture")).await;
    b.assert_fits_width("a received picture").await;
    b.client.clone().close().await.unwrap();
}

async fn received_picture_on_a_desktop(backend: Backend) {
    a_received_picture(backend, Screen::Desktop).await
}

crate::on_both_databases!(received_picture_on_a_desktop);
crate::on_a_phone!(a_received_picture);

/// In Chromium, desktop (both databases) and a phone: attach a picture in the composer, see it
/// counted as one MMS, send it, and see it in the conversation.
async fn attach_and_send_a_picture(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    let dir = std::env::temp_dir().join(format!("herald-attach-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("map-{tag}.png"));
    image::RgbImage::from_fn(600, 400, |x, _| image::Rgb([40, (x / 3) as u8, 90]))
        .save(&file)
        .unwrap();
    b.open(&format!("{}/messaging", server.base)).await;
    open_conversation(&b, "Ada Lovelace").await;
    let input = b.wait_for("#composer-attach").await;
    input
        .send_keys(file.to_str().unwrap())
        .await
        .expect("the file input takes the picture");
    b.wait_for_text("#composer-attachments", &format!("map-{tag}.png"))
        .await;
    b.wait_for_text("#composer-count", "1 MMS").await;
    b.fill("#composer-body", "Here is the map to the office.")
        .await;
    b.shot(&format!("{tag}-99-attach")).await;
    b.click("#composer-send").await;
    b.wait_for(".message.outbound .media-thumb img").await;
    b.wait_for_text(
        ".message.outbound .bubble",
        "Here is the map to the office.",
    )
    .await;
    b.shot(&format!("{tag}-99-sent-picture")).await;
    b.assert_fits_width("a sent picture").await;
    b.client.clone().close().await.unwrap();
}

async fn send_picture_on_a_desktop(backend: Backend) {
    attach_and_send_a_picture(backend, Screen::Desktop).await
}

crate::on_both_databases!(send_picture_on_a_desktop);
crate::on_a_phone!(attach_and_send_a_picture);
