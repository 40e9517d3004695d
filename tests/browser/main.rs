//! Browser and desktop tests: the dx-built server, headless Chromium through WebDriver, and the
//! desktop app under Xvfb. Screenshots go to test-output/screenshots/.
#[path = "../integration/helpers.rs"]
#[allow(dead_code)]
mod helpers;

mod campaign;
mod desktop;
mod harness;
mod live_tabs;
mod messaging;
mod plans;
mod suggestions;
mod two_instances;
