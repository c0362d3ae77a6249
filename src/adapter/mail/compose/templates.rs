//! The embedded templates, the language fallback and the text filters.
//!
//! A template `templates/<lang>/<kind>.txt` (or `.html`) extends
//! `layout.txt` (`layout.html`) and defines the blocks `subject` and `body`.
//! Names inside templates are relative to the template's own language
//! directory, so a translation can override a layout, a kind, or nothing:
//! whatever file a language lacks is taken from English.

use std::sync::LazyLock;

use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Serde, Value};
use minijinja::{Environment, Error};

use super::ComposeError;
use super::context::Context;
use crate::domain::lang::Lang;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/templates.rs"));
}

/// Width plain text is wrapped to: leaves room for one level of `> ` quoting
/// within the 78 columns RFC 5322 recommends.
pub(crate) const TEXT_WIDTH: usize = 76;

/// The three rendered pieces of one mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rendered {
    /// The subject line without the `[dopis #N]` tag.
    pub subject: String,
    /// The text/plain body.
    pub text: String,
    /// The text/html body.
    pub html: String,
}

/// The templates, each parsed once when first used; `Err` holds the
/// message of a set-up that failed (a bug caught by the tests).
static ENVIRONMENT: LazyLock<Result<Environment<'static>, String>> = LazyLock::new(environment);

fn environment() -> Result<Environment<'static>, String> {
    let mut env = Environment::new();
    let syntax = SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        // Included pieces end with a newline that the text needs.
        .keep_trailing_newline(true)
        .build()
        .map_err(|e| e.to_string())?;
    env.set_syntax(syntax);
    // A missing variable is a template bug: fail loudly in tests, not print nothing.
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    // Each template is parsed when first used, not all of them at the
    // first mail: a CLI call composes one or two mails in one language.
    env.set_loader(|name| {
        Ok(embedded::TEMPLATES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, source)| source.to_string()))
    });
    env.set_path_join_callback(|name, parent| {
        let dir = parent.split_once('/').map_or("en", |(lang, _)| lang);
        resolve_in(dir, name).into()
    });
    env.add_filter("wrap", wrap_filter);
    env.add_filter("quote", quote_filter);
    Ok(env)
}

fn exists(name: &str) -> bool {
    embedded::TEMPLATES.iter().any(|(n, _)| *n == name)
}

/// `lang/file` if that language has it, else `en/file`.
fn resolve_in(lang: &str, file: &str) -> String {
    let own = format!("{lang}/{file}");
    if exists(&own) {
        own
    } else {
        format!("en/{file}")
    }
}

/// Whether the embedded template `name` parses (each is parsed only when
/// first used, so the tests parse them all).
#[cfg(test)]
pub(crate) fn parse_check(name: &str) -> Result<(), String> {
    let env = env().map_err(|e| e.to_string())?;
    env.get_template(name)
        .map(|_| ())
        .map_err(|e| format!("{name}: {e}"))
}

/// The template names of every embedded file, e.g. `en/help.txt`.
#[cfg(test)]
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    embedded::TEMPLATES.iter().map(|(n, _)| *n)
}

fn template_error(name: &str, e: &Error) -> ComposeError {
    // The chain of causes holds the line inside an included layout.
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        message.push_str(": ");
        message.push_str(&inner.to_string());
        source = inner.source();
    }
    ComposeError::Template {
        name: name.to_owned(),
        message,
    }
}

fn env() -> Result<&'static Environment<'static>, ComposeError> {
    ENVIRONMENT
        .as_ref()
        .map_err(|message| ComposeError::Template {
            name: "templates".to_owned(),
            message: message.clone(),
        })
}

/// Renders the subject, text and HTML of `kind` in `lang` (English fallback).
pub(crate) fn render(lang: Lang, kind: &str, ctx: &Context) -> Result<Rendered, ComposeError> {
    let value = Value::from(Serde(ctx));
    let (subject, text) = render_one(lang, &format!("{kind}.txt"), &value, true)?;
    let (_, html) = render_one(lang, &format!("{kind}.html"), &value, false)?;
    Ok(Rendered {
        subject,
        text: tidy_text(&text),
        html,
    })
}

/// Renders `calendar.txt` in `lang`: the calendar event's summary (its
/// first line) and description (the rest).
pub(crate) fn render_calendar(lang: Lang, ctx: &Context) -> Result<(String, String), ComposeError> {
    let value = Value::from(Serde(ctx));
    let (_, text) = render_one(lang, "calendar.txt", &value, false)?;
    let text = tidy_text(&text);
    let (summary, description) = text.split_once('\n').unwrap_or((text.as_str(), ""));
    Ok((summary.trim().to_owned(), description.trim().to_owned()))
}

/// Renders only the subject block of `kind` in `lang`.
pub(crate) fn render_subject(
    lang: Lang,
    kind: &str,
    ctx: &Context,
) -> Result<String, ComposeError> {
    let value = Value::from(Serde(ctx));
    render_one(lang, &format!("{kind}.txt"), &value, true).map(|(subject, _)| subject)
}

fn render_one(
    lang: Lang,
    file: &str,
    ctx: &Value,
    with_subject: bool,
) -> Result<(String, String), ComposeError> {
    let name = resolve_in(lang.code(), file);
    let template = env()?
        .get_template(&name)
        .map_err(|e| template_error(&name, &e))?;
    let mut captured = template
        .render_captured(ctx.clone())
        .map_err(|e| template_error(&name, &e))?;
    let subject = if with_subject {
        captured
            .with_state_mut(|state| state.render_block("subject"))
            .map_err(|e| template_error(&name, &e))?
    } else {
        String::new()
    };
    Ok((subject, captured.into_output()))
}

/// A typed reason or note in `lang` (English fallback), on one line:
/// `value` is what [`super::words`] made of it, seen as `r` by
/// `reason.txt`.
pub(crate) fn words(lang: Lang, value: &serde_json::Value) -> Result<String, ComposeError> {
    let name = resolve_in(lang.code(), "reason.txt");
    let template = env()?
        .get_template(&name)
        .map_err(|e| template_error(&name, &e))?;
    let text = template
        .render(minijinja::context! { r => Value::from(Serde(value)) })
        .map_err(|e| template_error(&name, &e))?;
    Ok(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// How a game ended in `lang`'s words (`outcome.txt`, English
/// fallback), on one line.
pub(crate) fn outcome(
    lang: Lang,
    outcome: &super::context::OutcomeContext,
) -> Result<String, ComposeError> {
    let name = resolve_in(lang.code(), "outcome.txt");
    let template = env()?
        .get_template(&name)
        .map_err(|e| template_error(&name, &e))?;
    let text = template
        .render(minijinja::context! { game => minijinja::context! { outcome => Value::from(Serde(outcome)) } })
        .map_err(|e| template_error(&name, &e))?;
    Ok(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Plain text as mail wants it: no tabs, no trailing spaces (except the
/// signature separator `-- `), no run of blank lines, one final newline.
fn tidy_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.replace('\t', "    ").lines() {
        let line = if line == "-- " { line } else { line.trim_end() };
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// Word-wraps text to `width` columns (default [`TEXT_WIDTH`]), keeping its
/// own line breaks; a word longer than the width stands on its own line.
pub(crate) fn wrap(text: &str, width: usize) -> String {
    let width = width.max(10);
    let mut out = String::with_capacity(text.len() + text.len() / width);
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        // A line that fits keeps its spacing (callers align columns).
        if line.chars().count() <= width {
            out.push_str(line.trim_end());
            continue;
        }
        let mut column = 0;
        let mut words = line.split_whitespace().peekable();
        while let Some(first) = words.next() {
            // A move number stays on the line of its move (`4. dxe5`), and
            // an abbreviation of initials on one line (`z. B.`, `d. h.`).
            let glued;
            let word = match words.peek() {
                Some(next)
                    if (is_move_number(first)
                        && next.chars().next().is_some_and(char::is_alphabetic))
                        || (is_initial(first) && is_initial(next)) =>
                {
                    glued = format!("{first} {next}");
                    words.next();
                    glued.as_str()
                }
                _ => first,
            };
            let len = word.chars().count();
            if column > 0 && column + 1 + len > width {
                out.push('\n');
                column = 0;
            }
            if column > 0 {
                out.push(' ');
                column += 1;
            }
            out.push_str(word);
            column += len;
        }
    }
    out
}

/// Whether `word` is one letter and a full stop: a part of `z. B.`.
fn is_initial(word: &str) -> bool {
    let mut chars = word.chars();
    matches!((chars.next(), chars.next(), chars.next()), (Some(c), Some('.'), None) if c.is_alphabetic())
}

/// Whether `word` is a move number as written before a move: `12.` or
/// `12...` (at most three digits: a year ending a sentence is not one).
fn is_move_number(word: &str) -> bool {
    let digits = word.trim_end_matches('.');
    digits.len() < word.len()
        && (1..=3).contains(&digits.len())
        && digits.chars().all(|c| c.is_ascii_digit())
}

fn wrap_filter(text: &str, width: Option<usize>) -> String {
    wrap(text, width.unwrap_or(TEXT_WIDTH))
}

/// Prefixes every line with `> `, as mail clients quote, after wrapping.
fn quote_filter(text: &str) -> String {
    wrap(text, TEXT_WIDTH - 2)
        .lines()
        .map(|l| format!("> {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
