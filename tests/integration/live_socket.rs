//! Test support: opens a page's live WebSocket (`/api/live/ws?topic=…`) as a signed-in member or as nobody.
use crate::helpers::{Org, TestApp};
use futures::StreamExt;
use serde_json::json;
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{Error, Message};

pub type LiveSocket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Signs the person (owner or member) in once more and answers the new session's cookie.
pub async fn session_cookie(app: &TestApp, org: &Org) -> String {
    let res = crate::helpers::new_client()
        .post(app.url("/api/auth/sign_in"))
        .json(&json!({"form": {"email": org.email, "password": org.password}}))
        .send()
        .await
        .expect("sign in");
    let cookie = res.headers().get("set-cookie").expect("a session cookie");
    cookie
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

/// Opens the live socket for `topic`; a refused handshake answers its HTTP status.
pub async fn open_live(
    app: &TestApp,
    org: Option<&Org>,
    topic: &str,
) -> Result<LiveSocket, reqwest::StatusCode> {
    open_live_from(app, org, topic, None).await
}

/// As `open_live`, from a page of `origin` (a browser sends it with every WebSocket).
pub async fn open_live_from(
    app: &TestApp,
    org: Option<&Org>,
    topic: &str,
    origin: Option<&str>,
) -> Result<LiveSocket, reqwest::StatusCode> {
    let url = app
        .url(&format!("/api/live/ws?topic={topic}"))
        .replacen("http", "ws", 1);
    let mut request = url.into_client_request().unwrap();
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("origin", origin.parse().unwrap());
    }
    if let Some(org) = org {
        let cookie = session_cookie(app, org).await;
        request
            .headers_mut()
            .insert("cookie", cookie.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(Error::Http(res)) => Err(reqwest::StatusCode::from_u16(res.status().as_u16()).unwrap()),
        Err(e) => panic!("the live socket failed: {e}"),
    }
}

/// The next event's text, if one arrives within `wait`.
pub async fn next_event(socket: &mut LiveSocket, wait: Duration) -> Option<String> {
    loop {
        let msg = tokio::time::timeout(wait, socket.next())
            .await
            .ok()??
            .ok()?;
        match msg {
            Message::Text(t) => return Some(t.to_string()),
            Message::Binary(b) => return Some(String::from_utf8_lossy(&b).into_owned()),
            Message::Close(_) => return None,
            _ => continue,
        }
    }
}

/// Whether the server closes the socket within `wait` (events before the close are skipped).
pub async fn closes_within(socket: &mut LiveSocket, wait: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, socket.next()).await {
            Err(_) => return false,
            Ok(None) | Ok(Some(Err(_))) | Ok(Some(Ok(Message::Close(_)))) => return true,
            Ok(Some(Ok(_))) => continue,
        }
    }
}
