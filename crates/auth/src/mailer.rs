//! Outgoing e-mail: an SMTP relay through `lettre`, or, when none is
//! configured, the dev mailbox (`auth.mail_messages`), shown by
//! [`crate::mailbox_router`].

use lettre::message::{Mailbox, header::ContentType};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use sqlx::PgPool;

use crate::config::SmtpConfig;
use crate::error::{AuthError, Result};

/// One message to send.
#[derive(Debug, Clone)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub text: String,
}

/// Where mail goes.
#[derive(Clone)]
pub enum Mailer {
    /// An SMTP relay.
    Smtp {
        transport: Box<AsyncSmtpTransport<Tokio1Executor>>,
        from: Mailbox,
    },
    /// The dev mailbox in Postgres.
    DevMailbox(PgPool),
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Smtp { from, .. } => write!(f, "Mailer::Smtp(from {from})"),
            Self::DevMailbox(_) => f.write_str("Mailer::DevMailbox"),
        }
    }
}

/// Why the SMTP settings cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum MailerError {
    #[error("SMTP sender address {0:?} is not an e-mail address")]
    BadSender(String),
    #[error("SMTP relay {host}: {reason}")]
    Relay { host: String, reason: String },
}

impl Mailer {
    /// SMTP when `smtp` is set, else the dev mailbox stored through `pool`.
    pub fn from_config(smtp: Option<&SmtpConfig>, pool: PgPool) -> Result<Self, MailerError> {
        let Some(smtp) = smtp else {
            return Ok(Self::DevMailbox(pool));
        };
        let from: Mailbox = match &smtp.sender_name {
            Some(name) => format!("{name} <{}>", smtp.sender_email),
            None => smtp.sender_email.clone(),
        }
        .parse()
        .map_err(|_| MailerError::BadSender(smtp.sender_email.clone()))?;
        let relay_error = |e: lettre::transport::smtp::Error| MailerError::Relay {
            host: smtp.host.clone(),
            reason: e.to_string(),
        };
        let local = matches!(smtp.host.as_str(), "localhost" | "127.0.0.1" | "::1");
        let mut builder = if smtp.port == 465 {
            AsyncSmtpTransport::<Tokio1Executor>::relay(&smtp.host).map_err(relay_error)?
        } else if local {
            AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&smtp.host)
        } else {
            AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&smtp.host).map_err(relay_error)?
        }
        .port(smtp.port);
        if let (Some(user), Some(pass)) = (&smtp.user, &smtp.pass) {
            builder = builder.credentials(Credentials::new(user.clone(), pass.clone()));
        }
        Ok(Self::Smtp {
            transport: Box::new(builder.build()),
            from,
        })
    }

    pub fn is_dev_mailbox(&self) -> bool {
        matches!(self, Self::DevMailbox(_))
    }

    /// Sends (or stores) `mail`.
    pub async fn send(&self, mail: Mail) -> Result<()> {
        match self {
            Self::DevMailbox(pool) => {
                sqlx::query(
                    "insert into auth.mail_messages (recipient, subject, body_text) values ($1, $2, $3)",
                )
                .bind(&mail.to)
                .bind(&mail.subject)
                .bind(&mail.text)
                .execute(pool)
                .await?;
                Ok(())
            }
            Self::Smtp { transport, from } => {
                let to: Mailbox = mail.to.parse().map_err(|_| {
                    AuthError::validation("Unable to validate email address: invalid format")
                })?;
                let message = Message::builder()
                    .from(from.clone())
                    .to(to)
                    .subject(mail.subject)
                    .header(ContentType::TEXT_PLAIN)
                    .body(mail.text)
                    .map_err(AuthError::internal)?;
                transport
                    .send(message)
                    .await
                    .map(|_| ())
                    .map_err(AuthError::internal)
            }
        }
    }
}
