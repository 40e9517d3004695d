//! Browser and desktop tests: the built web app's server (scripts/build_web.sh), headless Chromium
//! through WebDriver, and the desktop app under Xvfb. Screenshots go to test-output/screenshots/.
#[path = "../integration/helpers.rs"]
#[allow(dead_code)]
mod helpers;
#[path = "../integration/smtp.rs"]
mod smtp;

mod accessibility;
mod asks_first;
mod campaign;
mod contact_import;
mod contact_page;
mod conversation_view;
mod desktop;
mod developers;
mod email;
mod first_load;
mod full_client;
mod harness;
mod knowledge;
mod learning;
mod live_tabs;
mod messaging;
mod new_campaign;
mod notes;
mod notifications;
mod opt_outs;
mod phone;
mod plan_stop;
mod plans;
mod received_picture;
mod reports;
mod saved_replies;
mod scale;
mod scheduled;
mod security;
mod sender_profiles;
mod step_plans;
mod suggesters;
mod suggestions;
mod team;
mod team_inbox;
mod timeline;
mod two_instances;

/// Runs a flow `name(backend, screen)` on a 390×844 phone, on SQLite: the layout does not
/// depend on the database, and the desktop runs cover both databases.
#[macro_export]
macro_rules! on_a_phone {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn phone_sqlite() {
                super::$name(
                    $crate::helpers::Backend::Sqlite,
                    $crate::harness::Screen::PHONE,
                )
                .await
            }
        }
    )*};
}
