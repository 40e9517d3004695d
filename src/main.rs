//! Herald's entry point: the server with the `server` feature, otherwise the web, desktop or mobile client.
fn main() {
    #[cfg(feature = "server")]
    herald::server::launch::run();

    #[cfg(not(feature = "server"))]
    {
        #[cfg(any(feature = "desktop", feature = "mobile"))]
        {
            // The desktop and mobile builds talk to a running Herald server.
            let url = std::env::var("HERALD_SERVER_URL")
                .unwrap_or_else(|_| "http://127.0.0.1:8080".into());
            dioxus::fullstack::set_server_url(Box::leak(url.into_boxed_str()));
        }
        dioxus::launch(herald::ui::app::App);
    }
}
