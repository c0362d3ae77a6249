use super::render::{self, GameLinks, Site};
use crate::chess::diagram::Diagram;
use crate::chess::game::{Game, StartPosition};
use crate::ids::{EventId, GameId};
use crate::lang::Lang;
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
            crate::event::Visibility::Public,
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
        status: crate::event::EventStatus::Started,
        started_at: None,
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
