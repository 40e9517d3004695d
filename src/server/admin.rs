//! The operator's command line: `herald admin reset-password EMAIL` prints a one-time link to
//! choose a new password (there is no e-mail to send it by).
use crate::server::Config;

const USAGE: &str = "usage: herald admin reset-password EMAIL";

/// Runs `herald admin …` with the arguments after `admin`; answers the exit code.
pub async fn run(args: &[String]) -> i32 {
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("Herald cannot start: {e}");
            return 2;
        }
    };
    match args {
        [cmd, email] if cmd == "reset-password" => {
            let db = match crate::server::db::connect_and_migrate(&config.database_url).await {
                Ok(db) => db,
                Err(e) => {
                    eprintln!("database: {e}");
                    return 1;
                }
            };
            match crate::auth::account::reset_link_for_email(&db, &config.public_url, email).await {
                Ok(link) => {
                    println!("{}", link.url);
                    eprintln!(
                        "One use, until {}. Every session of this account ends when it is used.",
                        link.expires_at.format("%Y-%m-%d %H:%M UTC")
                    );
                    0
                }
                Err(e) => {
                    eprintln!("{e}");
                    1
                }
            }
        }
        _ => {
            eprintln!("{USAGE}");
            2
        }
    }
}
