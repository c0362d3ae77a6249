//! Recognising mail written by machines, which the daemon must never answer
//! (RFC 3834 and the headers vendors use in its place): answering a bounce or
//! an out-of-office reply with a help mail starts a mail loop.

use serde::Serialize;

/// Which kind of machine wrote a mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AutomaticKind {
    /// A delivery status notification: the mail we sent did not arrive.
    Bounce,
    /// An out-of-office reply, read receipt or other machine-generated mail.
    AutoReply,
    /// A mailing list or bulk sender.
    List,
}

/// A mail written by a machine: what kind, and the header that shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Automatic {
    /// Bounce, auto-reply or list.
    pub kind: AutomaticKind,
    /// The evidence, e.g. `Auto-Submitted: auto-replied`, for the log.
    pub evidence: String,
}

/// The headers that tell a machine's mail from a person's, as found in a mail.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LoopSignals {
    /// `Auto-Submitted` (RFC 3834), lower-cased keyword without parameters.
    pub auto_submitted: Option<String>,
    /// `Precedence` (bulk, list, junk, auto_reply), lower-cased.
    pub precedence: Option<String>,
    /// `List-Id`.
    pub list_id: Option<String>,
    /// Names of the other `List-*` headers present (Unsubscribe, Post …).
    pub list_headers: Vec<String>,
    /// Vendor auto-reply headers present (`X-Autoreply`, `X-Autorespond`,
    /// `X-Auto-Response-Suppress` …), as `Name: value`.
    pub vendor_auto_reply: Vec<String>,
    /// `X-Failed-Recipients`, which only bounces carry.
    pub failed_recipients: bool,
    /// The return path is the null path `<>` (bounces and RFC 3834 replies).
    pub null_return_path: bool,
    /// The local part of From is `mailer-daemon` or `postmaster`.
    pub from_mailer_daemon: bool,
    /// The top-level content type is `multipart/report`: its `report-type`.
    pub report_type: Option<String>,
    /// `X-Loop` values, lower-cased: an auto-responder that copies ours
    /// back is answering our own mail (see `InboundMail::carries_loop_of`).
    pub x_loop: Vec<String>,
    /// The subject, when it reads as an automatic reply to one of our mails
    /// (`Automatic reply: [dopis #42] …`; the prefixes are in `automatic.rs`).
    pub auto_reply_subject: Option<String>,
}

/// Classifies a mail by its loop signals; `None` for a mail a person wrote.
pub fn classify(s: &LoopSignals) -> Option<Automatic> {
    let found = |kind, evidence: String| Some(Automatic { kind, evidence });
    if let Some(report) = &s.report_type {
        return if report == "disposition-notification" {
            found(
                AutomaticKind::AutoReply,
                format!("multipart/report; report-type={report}"),
            )
        } else {
            found(
                AutomaticKind::Bounce,
                format!("multipart/report; report-type={report}"),
            )
        };
    }
    if s.failed_recipients {
        return found(AutomaticKind::Bounce, "X-Failed-Recipients".into());
    }
    if s.from_mailer_daemon {
        return found(AutomaticKind::Bounce, "From: MAILER-DAEMON".into());
    }
    if let Some(value) = s.auto_submitted.as_deref().filter(|v| *v != "no") {
        return found(AutomaticKind::AutoReply, format!("Auto-Submitted: {value}"));
    }
    if let Some(header) = s.vendor_auto_reply.first() {
        return found(AutomaticKind::AutoReply, header.clone());
    }
    if let Some(subject) = &s.auto_reply_subject {
        return found(AutomaticKind::AutoReply, format!("Subject: {subject}"));
    }
    match s.precedence.as_deref() {
        Some(p @ ("auto_reply" | "auto-reply")) => {
            return found(AutomaticKind::AutoReply, format!("Precedence: {p}"));
        }
        Some(p @ ("bulk" | "list" | "junk")) => {
            return found(AutomaticKind::List, format!("Precedence: {p}"));
        }
        _ => {}
    }
    if let Some(id) = &s.list_id {
        return found(AutomaticKind::List, format!("List-Id: {id}"));
    }
    if let Some(name) = s.list_headers.first() {
        return found(AutomaticKind::List, name.clone());
    }
    if s.null_return_path {
        return found(AutomaticKind::Bounce, "Return-Path: <>".into());
    }
    None
}

/// Vendor headers that mark an automatic reply, lower-cased. Their values vary
/// (`yes`, `All`, `OOF, AutoReply`), so presence is what counts, except where
/// a value says no. Exchange and Outlook send out-of-office replies without
/// RFC 3834's `Auto-Submitted` but with `X-Auto-Response-Suppress` and, from
/// an inbox rule, `X-MS-Exchange-Inbox-Rules-Loop` (as Zammad's
/// out-of-office check reads them, zammad/zammad
/// `app/models/channel/filter/out_of_office_check.rb`); Exim's auto-reply
/// guide adds cron's `X-Cron-Env`.
pub(crate) const VENDOR_AUTO_REPLY: &[&str] = &[
    "x-autoreply",
    "x-autorespond",
    "x-auto-response-suppress",
    "x-autogenerated",
    "x-autoreply-from",
    "x-mail-autoreply",
    "x-ms-exchange-generated-message-source",
    "x-ms-exchange-inbox-rules-loop",
    "x-cron-env",
];

/// How automatic replies begin their subject, folded (lower case, no
/// accents, no space before the colon): Outlook's "Automatic reply:" in the
/// languages of Europe, older Exchange's "Out of Office:" and German
/// "Abwesenheitsnotiz:", vacation responders' "Auto-Reply:" and "Auto:".
/// Sources: Sisimai's RFC 3834 detector (sisimai `RFC3834`: `Auto:`,
/// `Auto Response:`, `Automatic reply:`, `Out of (the) Office:`), the Mzax
/// bounce detector's subject list (mage-mzax/emarketing
/// `Bounce/Detector/Autoreply.php`: Autosvar, Automatisk svar, Automatisch
/// antwoord, Abwesenheitsnotiz, Respuesta automática, Fuori sede, Frånvaro,
/// Réponse automatique), and the localized names of Outlook's automatic
/// replies for the languages dopis speaks (Samodejni odgovor, Odsotnost;
/// Odpowiedź automatyczna, Autoodpowiedź; Automātiskā atbilde; Automatische
/// Antwort).
///
/// A person may well start a subject with "Out of office", so a prefix
/// counts only when the rest of the subject is one of ours (`[dopis`): an
/// auto-reply quotes the subject it answers, a person's reply starts `Re:`.
pub const AUTO_REPLY_SUBJECTS: &[&str] = &[
    // en
    "automatic reply:",
    "auto reply:",
    "auto-reply:",
    "autoreply:",
    "auto response:",
    "auto-response:",
    "autoresponse:",
    "automatic response:",
    "auto:",
    "out of office:",
    "out of the office:",
    "out of office autoreply:",
    "out of office reply:",
    "vacation reply:",
    // de
    "automatische antwort:",
    "abwesenheitsnotiz:",
    "abwesend:",
    // sl
    "samodejni odgovor:",
    "odsotnost:",
    // pl
    "odpowiedz automatyczna:",
    "automatyczna odpowiedz:",
    "autoodpowiedz:",
    "nieobecnosc:",
    // lv
    "automatiska atbilde:",
    "prombutne:",
    // neighbours: cs, hr/sr/bs, hu, fr, es, it, nl, sv, da/no, fi
    "automaticka odpoved:",
    "automatski odgovor:",
    "automatikus valasz:",
    "reponse automatique:",
    "absence:",
    "respuesta automatica:",
    "risposta automatica:",
    "fuori sede:",
    "automatisch antwoord:",
    "afwezig:",
    "automatiskt svar:",
    "franvaro:",
    "autosvar:",
    "automatisk svar:",
    "automaattinen vastaus:",
];

/// The subject's auto-reply prefix, when it has one and answers one of our
/// mails (see [`AUTO_REPLY_SUBJECTS`]).
pub fn auto_reply_subject(subject: &str) -> Option<String> {
    let folded = crate::domain::command::fold(subject.trim()).replace(" :", ":");
    let prefix = AUTO_REPLY_SUBJECTS
        .iter()
        .find(|p| folded.starts_with(*p))?;
    folded[prefix.len()..]
        .contains("[dopis")
        .then(|| subject.trim().chars().take(80).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_loop_signal_classifies_the_mail() {
        let person = LoopSignals::default();
        let cases: Vec<(&str, LoopSignals, Option<AutomaticKind>)> = vec![
            ("a person's mail", person.clone(), None),
            (
                "Auto-Submitted: no is a person",
                LoopSignals {
                    auto_submitted: Some("no".into()),
                    ..person.clone()
                },
                None,
            ),
            (
                "vacation",
                LoopSignals {
                    auto_submitted: Some("auto-replied".into()),
                    ..person.clone()
                },
                Some(AutomaticKind::AutoReply),
            ),
            (
                "generated",
                LoopSignals {
                    auto_submitted: Some("auto-generated".into()),
                    ..person.clone()
                },
                Some(AutomaticKind::AutoReply),
            ),
            (
                "Exchange out of office",
                LoopSignals {
                    vendor_auto_reply: vec!["X-Auto-Response-Suppress: All".into()],
                    ..person.clone()
                },
                Some(AutomaticKind::AutoReply),
            ),
            (
                "bulk",
                LoopSignals {
                    precedence: Some("bulk".into()),
                    ..person.clone()
                },
                Some(AutomaticKind::List),
            ),
            (
                "old-style auto reply",
                LoopSignals {
                    precedence: Some("auto_reply".into()),
                    ..person.clone()
                },
                Some(AutomaticKind::AutoReply),
            ),
            (
                "list",
                LoopSignals {
                    list_id: Some("<chess.lists.example.org>".into()),
                    ..person.clone()
                },
                Some(AutomaticKind::List),
            ),
            (
                "list without List-Id",
                LoopSignals {
                    list_headers: vec!["List-Unsubscribe".into()],
                    ..person.clone()
                },
                Some(AutomaticKind::List),
            ),
            (
                "null return path",
                LoopSignals {
                    null_return_path: true,
                    ..person.clone()
                },
                Some(AutomaticKind::Bounce),
            ),
            (
                "mailer daemon",
                LoopSignals {
                    from_mailer_daemon: true,
                    ..person.clone()
                },
                Some(AutomaticKind::Bounce),
            ),
            (
                "failed recipients",
                LoopSignals {
                    failed_recipients: true,
                    ..person.clone()
                },
                Some(AutomaticKind::Bounce),
            ),
            (
                "DSN",
                LoopSignals {
                    report_type: Some("delivery-status".into()),
                    ..person.clone()
                },
                Some(AutomaticKind::Bounce),
            ),
            (
                "read receipt",
                LoopSignals {
                    report_type: Some("disposition-notification".into()),
                    ..person.clone()
                },
                Some(AutomaticKind::AutoReply),
            ),
            (
                "RFC 3834 reply with null return path is an auto-reply",
                LoopSignals {
                    auto_submitted: Some("auto-replied".into()),
                    null_return_path: true,
                    ..person.clone()
                },
                Some(AutomaticKind::AutoReply),
            ),
        ];
        for (name, signals, kind) in cases {
            assert_eq!(classify(&signals).map(|a| a.kind), kind, "{name}");
        }
    }
}
