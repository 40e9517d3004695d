//! aiosmtpd, a local SMTP server no one here wrote (scripts/setup.sh --test installs it), on a free
//! loopback port, keeping every message it receives in a Maildir for the email tests to read.
#![allow(dead_code)]
use crate::helpers::{eventually, free_port};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// aiosmtpd on a free loopback port, keeping every message in a Maildir.
pub struct SmtpServer {
    child: Child,
    pub port: u16,
    maildir: PathBuf,
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.maildir);
    }
}

/// One received email: its headers' text and its body.
#[derive(Debug)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub body: String,
}

impl SmtpServer {
    pub async fn start() -> Self {
        let port = free_port();
        let maildir = std::env::temp_dir().join(format!("herald-mail-{}", uuid::Uuid::new_v4()));
        let child = Command::new("python3")
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(&maildir)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("aiosmtpd (scripts/setup.sh --test installs it)");
        // Owned at once: whatever happens next, dropping it stops the process.
        let server = Self {
            child,
            port,
            maildir,
        };
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return server;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("aiosmtpd did not start on port {port}");
    }

    pub fn settings(&self) -> herald::platform::email::EmailSettings {
        herald::platform::email::EmailSettings {
            smtp_url: format!("smtp://127.0.0.1:{}", self.port),
            from: "Herald <no-reply@herald.test>".into(),
        }
    }

    /// Every message received so far.
    pub fn mails(&self) -> Vec<Mail> {
        let new = self.maildir.join("new");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&new)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        files.iter().map(|f| parse(f)).collect()
    }

    /// The mail with this subject, waiting for it.
    pub async fn mail_titled(&self, subject: &str) -> Mail {
        eventually(20, &format!("an email titled {subject}"), || async {
            self.mails().into_iter().find(|m| m.subject == subject)
        })
        .await
    }

    /// The mail to `to`, waiting for it.
    pub async fn mail_to(&self, to: &str) -> Mail {
        eventually(20, &format!("an email to {to}"), || async {
            self.mails().into_iter().find(|m| m.to.contains(to))
        })
        .await
    }
}

fn parse(file: &Path) -> Mail {
    let text = std::fs::read_to_string(file).unwrap().replace("\r\n", "\n");
    let (head, body) = text.split_once("\n\n").unwrap_or((&text, ""));
    let header = |name: &str| {
        head.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}: ")))
            .unwrap_or_default()
            .to_owned()
    };
    Mail {
        to: header("To"),
        subject: header("Subject"),
        // Lettre writes long lines as quoted-printable: undo the soft breaks and `=3D`.
        body: body.replace("=\n", "").replace("=3D", "="),
    }
}

/// The address in a text that starts with `prefix`.
pub fn link_in(text: &str, prefix: &str) -> String {
    let at = text
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix} in {text}"));
    text[at..].split_whitespace().next().unwrap().to_owned()
}
