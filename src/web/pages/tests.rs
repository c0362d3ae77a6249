use super::render::{self, GameLinks, Site};
use crate::domain::chess::diagram::Diagram;
use crate::domain::chess::game::{Game, StartPosition};
use crate::domain::ids::{EventId, GameId};
use crate::domain::lang::Lang;
use crate::service::pages::{EventSummary, GamePage, fen};

const SITE: Site<'static> = Site {
    server: "Club <chess>",
    home: "/",
    path: "/games/42",
};

fn page(side: Option<shakmaty::Color>) -> GamePage {
    let game = Game::replay(StartPosition::Standard, &["e2e4", "e7e5", "g1f3"]).expect("legal");
    GamePage {
        lang: Lang::En,
        figurines: false,
        id: GameId(42),
        white: "Ana <b>".into(),
        black: "Boris & Co".into(),
        white_rating: Some(1834),
        black_rating: None,
        event: Some((
            EventId(3),
            "Cup".into(),
            crate::domain::event::Visibility::Public,
            1,
            2,
        )),
        fen: fen(game.position()),
        svg: Diagram::new(game.position(), game.last_move()).to_svg(),
        moves: Vec::new(),
        moves_text: "1. e4 e5 2. Nf3".into(),
        to_move: Some(shakmaty::Color::Black),
        result: None,
        end_reason: None,
        time_control: "3 days per move".into(),
        clocks: Some("White 0 days used".into()),
        deadline: Some("2026-12-05 12:00 UTC".into()),
        draw_offer_by: None,
        side,
        reply_address: side.map(|_| "chess+g42.abcdefghij@club.example".into()),
        conditionals: side.map_or_else(Vec::new, |_| vec!["if 2...Nc6 3.Bb5".into()]),
        tables: None,
    }
}

fn links() -> GameLinks {
    GameLinks {
        event: Some("/events/3".into()),
        pgn: "/games/42/pgn".into(),
        back: None,
    }
}

#[test]
fn a_game_page_carries_its_position_and_escapes_every_name() {
    let html = render::game(SITE, &page(None), &links()).expect("renders");
    assert!(
        html.contains(
            "data-fen=\"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2\""
        )
    );
    assert!(html.contains("<svg "), "the board is inline SVG");
    assert!(html.contains("Ana &lt;b&gt;") && html.contains("Boris &amp; Co"));
    assert!(html.contains("Club &lt;chess&gt;"));
    assert!(html.contains("name=\"viewport\""));
    assert!(html.contains("Black to move") && html.contains("2026-12-05 12:00 UTC"));
    assert!(!html.contains('@'), "no address on a public game page");
    assert!(!html.contains("conditional"));
}

#[test]
fn a_players_game_page_shows_their_reply_address_and_their_conditionals() {
    let html = render::game(SITE, &page(Some(shakmaty::Color::Black)), &links()).expect("renders");
    assert!(html.contains("chess+g42.abcdefghij@club.example"));
    assert!(html.contains("if 2...Nc6 3.Bb5"));
    assert!(html.contains("Your move"));
    assert!(html.contains("data-orientation=\"black\""));
}

#[test]
fn the_index_links_each_event_and_escapes_its_name() {
    let events = [EventSummary {
        id: EventId(7),
        name: "<script>alert(1)</script>".into(),
        kind: "round-robin".into(),
        status: crate::domain::event::EventStatus::Started,
        started_at: None,
        entries: None,
    }];
    let html =
        render::index(SITE, Lang::En, &events, |id| format!("/events/{}", id.0)).expect("renders");
    assert!(html.contains("href=\"/events/7\""));
    assert!(!html.contains("<script>"));
    assert!(html.contains("Round robin"));
}

#[test]
fn error_pages_say_little_and_render() {
    for status in [400, 404, 405, 500] {
        let html = render::error(SITE, Lang::En, status);
        assert!(html.starts_with("<!DOCTYPE html>"), "{status}: {html}");
        assert!(!html.contains('@'));
    }
    assert!(render::error(SITE, Lang::En, 404).contains("Not found"));
    assert!(render::error(SITE, Lang::Sl, 404).contains("Ni najdeno"));
}

fn open_event(entrants: Vec<String>) -> crate::service::pages::EventPage {
    crate::service::pages::EventPage {
        lang: Lang::En,
        id: EventId(12),
        name: "Spring <open>".into(),
        kind: "round-robin".into(),
        visibility: crate::domain::event::Visibility::Public,
        status: crate::domain::event::EventStatus::Open,
        started_at: None,
        time_control: "10 moves in 50 days".into(),
        over: false,
        crosstable: None,
        boards: Vec::new(),
        pairings: Vec::new(),
        entries: Some(crate::service::pages::EntriesInfo {
            open: true,
            opens: None,
            not_yet: false,
            closes: "2027-02-01 23:59 UTC".into(),
            entered: entrants.len() as u32,
            min: 4,
            max: 10,
            start_when_full: false,
            anyone: false,
            rating_min: Some(1800),
            rating_max: None,
            invited_only: false,
            section_size: None,
            section_bands: Vec::new(),
            promotes: None,
            requires: None,
            entrants,
        }),
        parts: Vec::new(),
        staged: false,
        part_of: None,
    }
}

#[test]
fn a_staged_event_links_its_groups_and_final_and_each_part_its_event() {
    use crate::service::pages::EventPart;
    let game = |_: GameId| None;
    let event = |e: EventId, _| format!("/events/{}", e.0);
    let links = super::render::EventLinks {
        game: &game,
        pgn: None,
        feed: None,
        back: None,
        address: "chess@club.example",
        event: &event,
    };
    let part = |id, name: &str, state| EventPart {
        id: EventId(id),
        name: name.into(),
        visibility: crate::domain::event::Visibility::Public,
        state,
    };
    let mut page = open_event(Vec::new());
    page.entries = None;
    page.status = crate::domain::event::EventStatus::Started;
    page.staged = true;
    page.parts = vec![
        part(13, "Cup, group 1", "finished"),
        part(14, "Cup, group 2", "playing"),
        part(15, "Cup final", "waiting"),
    ];
    let html = render::event(SITE, &page, &links).expect("renders");
    assert!(html.contains(">Stages</h2>"), "{html}");
    assert!(html.contains(r#"<a href="/events/13">Cup, group 1</a> — finished"#));
    assert!(html.contains(r#"<a href="/events/14">Cup, group 2</a> — being played"#));
    assert!(html.contains(r#"<a href="/events/15">Cup final</a> — not started yet"#));
    let mut group = open_event(Vec::new());
    group.entries = None;
    group.part_of = Some(part(12, "Cup", "playing"));
    let html = render::event(SITE, &group, &links).expect("renders");
    assert!(
        html.contains(r#"Part of <a href="/events/12">Cup</a>"#),
        "{html}"
    );
    assert!(!html.contains("Stages"));
}

#[test]
fn an_event_open_for_entries_says_how_to_enter_in_the_readers_words() {
    let game = |_: GameId| None;
    let mut page = open_event(vec!["Ana <b>".into()]);
    let links = super::render::EventLinks {
        game: &game,
        pgn: None,
        feed: None,
        back: None,
        address: "chess@club.example",
        event: &|e: EventId, _| format!("/events/{}", e.0),
    };
    let html = render::event(SITE, &page, &links).expect("renders");
    assert!(
        html.contains("To enter, write <code>enter 12</code> to"),
        "{html}"
    );
    assert!(html.contains("mailto:chess@club.example"));
    assert!(html.contains("<li>Ana &lt;b&gt;</li>"), "names are escaped");
    assert!(html.contains("registered players, rated 1800 or more"));
    assert!(!html.contains("Standings") && !html.contains("Pairings"));
    page.lang = Lang::De;
    let html = render::event(SITE, &page, &links).expect("renders");
    assert!(
        html.contains("<code>anmelden 12</code> (oder <code>enter 12</code>)"),
        "{html}"
    );
    assert!(html.contains("eingetragene Spieler, mit einer Wertung von 1800 oder mehr"));
    let html = render::event(SITE, &open_event(Vec::new()), &links).expect("renders");
    assert!(html.contains("No one yet."));
}

/// Every language's words have exactly English's keys, and each is a
/// template that renders.
#[test]
fn every_language_has_every_word_of_the_pages() {
    use std::collections::BTreeSet;
    let keys = |lang: Lang| -> BTreeSet<String> {
        let (_, source) = render::WORDS
            .iter()
            .find(|(l, _)| *l == lang)
            .expect("a words file");
        render::words_of(source)
            .expect("reads")
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    };
    let english = keys(Lang::En);
    assert!(english.len() > 100, "{}", english.len());
    for lang in Lang::WRITTEN {
        assert_eq!(render::WORDS.iter().filter(|(l, _)| *l == lang).count(), 1);
        let own = keys(lang);
        let missing: Vec<_> = english.difference(&own).collect();
        let extra: Vec<_> = own.difference(&english).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{lang}: missing {missing:?}, extra {extra:?}"
        );
    }
}

/// Each page in each language: rendered, in that language (its `lang`
/// attribute and its own words), with a link to every other language.
#[test]
fn every_page_renders_in_every_language_with_a_switch_to_the_others() {
    for lang in Lang::WRITTEN {
        let mut game = page(Some(shakmaty::Color::Black));
        game.lang = lang;
        let mut event = open_event(vec!["Ana".into()]);
        event.lang = lang;
        let links = super::render::EventLinks {
            game: &|_| None,
            pgn: None,
            feed: Some("/events/12/feed.atom".into()),
            back: None,
            address: "chess@club.example",
            event: &|e: EventId, _| format!("/events/{}", e.0),
        };
        let pages = [
            render::game(SITE, &game, &links_for_game()).expect("game"),
            render::event(SITE, &event, &links).expect("event"),
            render::error(SITE, lang, 404),
        ];
        for html in &pages {
            assert!(
                html.contains(&format!("<html lang=\"{}\">", lang.code())),
                "{html}"
            );
            for other in Lang::WRITTEN {
                assert!(
                    html.contains(&format!("href=\"/games/42?lang={}\"", other.code())),
                    "{lang}: no link to {other}"
                );
            }
        }
        let your_move = [
            "Your move",
            "Na potezi ste vi",
            "Twój ruch",
            "Jūsu gājiens",
            "Sie sind am Zug",
        ];
        let index = Lang::WRITTEN
            .iter()
            .position(|l| *l == lang)
            .expect("written");
        assert!(pages[0].contains(your_move[index]), "{lang}: {}", pages[0]);
    }
}

fn links_for_game() -> GameLinks {
    links()
}

#[test]
fn a_count_takes_the_form_its_language_gives_it() {
    let mut page = open_event(Vec::new());
    page.entries = page.entries.map(|mut e| {
        e.section_size = Some(3);
        e
    });
    let links = super::render::EventLinks {
        game: &|_| None,
        pgn: None,
        feed: None,
        back: None,
        address: "chess@club.example",
        event: &|e: EventId, _| format!("/events/{}", e.0),
    };
    for (lang, size, want) in [
        (Lang::Sl, 2, "čakata"),
        (Lang::Sl, 3, "3 igralci"),
        (Lang::Sl, 5, "5 igralcev"),
        (Lang::Pl, 3, "3 graczy"),
        (Lang::De, 1, "1 Spieler wartet"),
        (Lang::De, 4, "4 Spieler warten"),
    ] {
        page.lang = lang;
        page.entries.as_mut().expect("entries").section_size = Some(size);
        let html = render::event(SITE, &page, &links).expect("renders");
        assert!(html.contains(want), "{lang} {size}: {html}");
    }
}
