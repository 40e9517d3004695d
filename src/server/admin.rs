//! The operator's command line, in the server binary: `herald admin …`.
//! - `check-config`: reads the environment and `.env` as the server would, and looks at what
//!   start-up needs (the model's settings, the database, the restore lock); exits 2 naming every
//!   problem when the server would refuse to start.
//! - `migrate`: runs pending migrations and prints how many are applied.
//! - `backup PATH`: a consistent online copy of the SQLite database while Herald runs (on
//!   PostgreSQL: the `pg_dump` command to use).
//! - `restore PATH`: puts a checked copy back, refusing while a server runs on the database.
//! - `create-owner EMAIL NAME ORGANISATION`: a new organisation and its owner; the password is
//!   read from the first line of standard input.
//! - `reset-password EMAIL`: prints a one-time link to choose a new password.
use crate::platform::Config;
use std::path::Path;

const USAGE: &str = "usage: herald admin check-config | migrate | backup PATH | restore PATH | \
                     create-owner EMAIL NAME ORGANISATION | reset-password EMAIL";

/// Runs `herald admin …` with the arguments after `admin`; answers the exit code.
pub async fn run(args: &[String]) -> i32 {
    if let [only] = args {
        if only == "check-config" {
            return check_config().await;
        }
    }
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("Herald would refuse to start: {e}");
            return 2;
        }
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let outcome = match args.as_slice() {
        ["migrate"] => migrate(&config).await,
        ["backup", path] => backup(&config, Path::new(path)).await,
        ["restore", path] => restore(&config, Path::new(path)).await,
        ["create-owner", email, name, org] => create_owner(&config, email, name, org).await,
        ["reset-password", email] => reset_password(&config, email).await,
        _ => {
            eprintln!("{USAGE}");
            return 2;
        }
    };
    match outcome {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("{e}");
            1
        }
    }
}

/// Exit 0 when Herald would start, 2 naming every reason when it would not.
async fn check_config() -> i32 {
    let (config, mut problems) = Config::read_env();
    problems.extend(crate::server::preflight::problems(&config).await);
    if problems.is_empty() {
        describe(&config);
        return 0;
    }
    eprintln!(
        "Herald would refuse to start: {}",
        crate::platform::config::ConfigErrors(problems)
    );
    2
}

fn describe(c: &Config) {
    use crate::platform::config::TransportKind;
    println!("Configuration OK: Herald would start.");
    println!(
        "  database   {}",
        crate::server::launch::redact(&c.database_url)
    );
    println!(
        "  listen     {}:{}  (PUBLIC_URL {})",
        c.ip, c.port, c.public_url
    );
    println!("  SMS        {:?}", c.transport);
    println!("  sign-up    {}", c.sign_up.as_str());
    println!("  demo seed  {}", c.seed_demo);
    match &c.backup {
        Some(b) => println!(
            "  backups    every {:.2} h into {}, keeping {}",
            b.every.as_secs_f64() / 3600.0,
            b.dir.display(),
            b.keep
        ),
        None => println!("  backups    none scheduled (BACKUP_DIR unset)"),
    }
    let mut notes = Vec::new();
    if c.production && !c.public_url.starts_with("https://") {
        notes.push("PUBLIC_URL is not https in production: cookies are not marked Secure.");
    }
    if c.transport == TransportKind::Twilio && c.secret_key.is_none() {
        notes.push("HERALD_SECRET_KEY is unset: owners cannot connect their own Twilio accounts.");
    }
    if c.backup.is_none() && crate::platform::sqlite_file::path_of(&c.database_url).is_some() {
        notes.push(
            "BACKUP_DIR is unset: no scheduled backups (or run `admin backup` from a timer).",
        );
    }
    if c.metrics_token.is_none() {
        notes.push("METRICS_TOKEN is unset: /metrics answers loopback callers only.");
    }
    for n in notes {
        println!("  note: {n}");
    }
}

async fn connect(c: &Config) -> Result<sea_orm::DatabaseConnection, String> {
    crate::platform::db::connect_and_migrate(&c.database_url)
        .await
        .map_err(|e| format!("database: {e}"))
}

async fn migrate(c: &Config) -> Result<(), String> {
    use migration::MigratorTrait;
    let db = connect(c).await?;
    let applied = migration::Migrator::get_applied_migrations(&db)
        .await
        .map_err(|e| e.to_string())?;
    let pending = migration::Migrator::get_pending_migrations(&db)
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "{} migration(s) applied, {} pending; the last: {}",
        applied.len(),
        pending.len(),
        applied.last().map(|m| m.name()).unwrap_or("none")
    );
    Ok(())
}

async fn backup(c: &Config, to: &Path) -> Result<(), String> {
    if crate::platform::sqlite_file::path_of(&c.database_url).is_none() {
        println!(
            "On PostgreSQL, back up with pg_dump (consistent while Herald runs):\n  pg_dump --format=custom --file={} \"$DATABASE_URL\"",
            to.display()
        );
        return Ok(());
    }
    let db = connect(c).await?;
    crate::platform::sqlite_file::backup(&db, to).await?;
    crate::platform::sqlite_file::check_file(to).await?;
    println!("Backed up to {} (integrity check: ok).", to.display());
    Ok(())
}

async fn restore(c: &Config, from: &Path) -> Result<(), String> {
    let Some(db) = crate::platform::sqlite_file::path_of(&c.database_url) else {
        println!(
            "On PostgreSQL, restore with pg_restore into an empty database, with every Herald \
             instance stopped:\n  pg_restore --clean --dbname=\"$DATABASE_URL\" {}",
            from.display()
        );
        return Ok(());
    };
    crate::platform::sqlite_file::restore(from, &db).await?;
    println!("Restored {} from {}.", db.display(), from.display());
    Ok(())
}

async fn create_owner(c: &Config, email: &str, name: &str, org: &str) -> Result<(), String> {
    let mut password = String::new();
    std::io::stdin()
        .read_line(&mut password)
        .map_err(|e| format!("reading the password from standard input: {e}"))?;
    let password = password.trim_end_matches(['\r', '\n']);
    crate::auth::model::validate_credentials(email, password)?;
    let db = connect(c).await?;
    let hash = crate::auth::password::hash_password(password);
    let txn = crate::platform::db::begin_write(&db)
        .await
        .map_err(|e| e.to_string())?;
    let (org_id, _) = crate::team::sign_up::insert_organization_with_owner(
        &txn,
        org,
        name,
        email,
        hash,
        chrono::Utc::now(),
    )
    .await
    .map_err(|e| e.to_string())?;
    txn.commit().await.map_err(|e| e.to_string())?;
    println!(
        "Created {org} ({org_id}) with its owner {email}. Sign in at {}.",
        c.public_url
    );
    Ok(())
}

async fn reset_password(c: &Config, email: &str) -> Result<(), String> {
    let db = connect(c).await?;
    let link = crate::auth::account::reset_link_for_email(&db, &c.public_url, email)
        .await
        .map_err(|e| e.to_string())?;
    println!("{}", link.url);
    eprintln!(
        "One use, until {}. Every session of this account ends when it is used.",
        link.expires_at.format("%Y-%m-%d %H:%M UTC")
    );
    Ok(())
}
