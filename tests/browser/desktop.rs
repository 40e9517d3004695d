//! The desktop build opens a real window under Xvfb against a running server; we take a screenshot.
use crate::harness::*;
use crate::helpers::Backend;
use std::process::{Command, Stdio};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn desktop_app_opens_against_the_server() {
    let bin = std::env::var("HERALD_DESKTOP_BIN")
        .expect("HERALD_DESKTOP_BIN names the desktop build (scripts/test.sh sets it)");
    let server = start_web_server(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    let display = format!(":{}", 90 + free_port() % 100);
    let _xvfb = Proc(
        Command::new("Xvfb")
            .args([
                display.as_str(),
                "-screen",
                "0",
                "1280x860x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb (scripts/setup.sh --test installs it)"),
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    let log = std::fs::File::create(screenshot_dir().join("desktop.log")).unwrap();
    let _app = Proc(
        Command::new(&bin)
            .env("DISPLAY", &display)
            .env("HERALD_SERVER_URL", &server.base)
            .env("WEBKIT_DISABLE_COMPOSITING_MODE", "1")
            .env("LIBGL_ALWAYS_SOFTWARE", "1")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start the desktop app"),
    );
    let shot = screenshot_dir().join("desktop-sign-in.png");
    // The app asks the server who is signed in (nobody), then shows the sign-in page.
    let mut colours = 0;
    for _ in 0..30 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let ok = Command::new("import")
            .args([
                "-display",
                &display,
                "-window",
                "root",
                shot.to_str().unwrap(),
            ])
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            let out = Command::new("identify")
                .args(["-format", "%k", shot.to_str().unwrap()])
                .output()
                .unwrap();
            colours = String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse()
                .unwrap_or(0);
            if colours > 50 {
                break;
            }
        }
    }
    assert!(
        colours > 50,
        "the desktop window rendered a page ({colours} colours in {})",
        shot.display()
    );
}
