use super::render::{self, GameLinks, Site};
use crate::domain::chess::diagram::Diagram;
use crate::domain::chess::game::{Game, StartPosition};
use crate::domain::ids::{EventId, GameId};
use crate::domain::lang::Lang;
use crate::service::pages::{EventSummary, GamePage, fen};

const SITE: Site<'static> = Site {
    server: "Club <chess>",
    home: "/",
};

fn page(side: Option<shakmaty::Color>) -> GamePage {
    let game = Game::replay(StartPosition::Standard, &["e2e4", "e7e5", "g1f3"]).expect("legal");
    GamePage {
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
        lang: Lang::En,
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
    let html = render::index(SITE, &events, |id| format!("/events/{}", id.0)).expect("renders");
    assert!(html.contains("href=\"/events/7\""));
    assert!(!html.contains("<script>"));
    assert!(html.contains("Round robin"));
}

#[test]
fn error_pages_say_little_and_render() {
    for status in [400, 404, 405, 500] {
        let html = render::error(SITE, status);
        assert!(html.starts_with("<!DOCTYPE html>"), "{status}: {html}");
        assert!(!html.contains('@'));
    }
    assert!(render::error(SITE, 404).contains("Not found"));
}

fn open_event(entrants: Vec<String>) -> crate::service::pages::EventPage {
    crate::service::pages::EventPage {
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
        back: None,
        lang: Lang::En,
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
    assert!(html.contains("<h2>Stages</h2>"), "{html}");
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
    let page = open_event(vec!["Ana <b>".into()]);
    let links = |lang| super::render::EventLinks {
        game: &game,
        pgn: None,
        back: None,
        lang,
        address: "chess@club.example",
        event: &|e: EventId, _| format!("/events/{}", e.0),
    };
    let html = render::event(SITE, &page, &links(Lang::En)).expect("renders");
    assert!(
        html.contains("To enter, write <code>enter 12</code> to"),
        "{html}"
    );
    assert!(html.contains("mailto:chess@club.example"));
    assert!(html.contains("<li>Ana &lt;b&gt;</li>"), "names are escaped");
    assert!(html.contains("registered players, rated 1800 or more"));
    assert!(!html.contains("Standings") && !html.contains("Pairings"));
    let html = render::event(SITE, &page, &links(Lang::De)).expect("renders");
    assert!(
        html.contains("<code>anmelden 12</code> (or <code>enter 12</code>)"),
        "{html}"
    );
    let html = render::event(SITE, &open_event(Vec::new()), &links(Lang::En)).expect("renders");
    assert!(html.contains("No one yet."));
}
