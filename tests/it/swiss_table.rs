//! The crosstable of a played Swiss event (issue 25), checked at the end
//! of `swiss_events`' event (11 players, 5 rounds, byes, draws, a
//! withdrawal's forfeit): `dopis event standings` as text, CSV and JSON,
//! and the event's page, each with a column per round (the opponent's
//! pairing number, the colour, the result) then the points and the FIDE
//! tie-breaks. The CSV is read back with a real CSV reader (the `csv`
//! crate), the JSON with serde_json, and the rounds must agree with each
//! other: a player's opponent in a round has them as opponent, with the
//! other colour and the other result, and a row's rounds add up to its
//! points.

use std::path::Path;

use crate::support::web::WebServer;
use crate::support::{TestDb, dopis, ok};

/// The standings of a finished Swiss `event` of `players` players over
/// `rounds` rounds, in every format and on its page.
pub(crate) fn the_swiss_crosstable_is_in_every_format(
    dir: &Path,
    db: &TestDb,
    server: &WebServer,
    event: &str,
    players: usize,
    rounds: u32,
) {
    let standings = |format: &str| {
        ok(&dopis(
            dir,
            db,
            &["event", "standings", event, "--format", format],
        ))
    };
    let columns: Vec<String> = (1..=rounds).map(|r| format!("R{r}")).collect();

    // JSON: one object per round in each row.
    let json: serde_json::Value = serde_json::from_str(&standings("json")).unwrap();
    let rows = json["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), players, "{json}");
    let by_number = |n: u64| -> &serde_json::Value {
        rows.iter()
            .find(|r| r["number"] == n)
            .unwrap_or_else(|| panic!("no row numbered {n}: {json}"))
    };
    let mut byes = 0;
    let mut forfeits = 0;
    for row in rows {
        let list = row["rounds"].as_array().expect("rounds");
        assert_eq!(list.len(), rounds as usize, "{row}");
        let mut sum = 0.0;
        for (i, r) in list.iter().enumerate() {
            assert_eq!(r["round"], i as u64 + 1, "{row}");
            sum += r["points"].as_f64().expect("every game is over");
            match r["opponent"].as_u64() {
                Some(them) => {
                    let theirs = &by_number(them)["rounds"][i];
                    assert_eq!(theirs["opponent"], row["number"], "{row}\n{theirs}");
                    assert_ne!(theirs["colour"], r["colour"], "{row}\n{theirs}");
                    assert_eq!(theirs["played"], r["played"], "{row}\n{theirs}");
                    let other = match r["result"].as_str().unwrap() {
                        "1" => "0",
                        "0" => "1",
                        "½" => "½",
                        "+" => "-",
                        "-" => "+",
                        other => panic!("a finished game's result {other}: {row}"),
                    };
                    assert_eq!(theirs["result"], other, "{row}\n{theirs}");
                    if r["played"] == false {
                        forfeits += 1;
                    }
                    // The cell: opponent, colour letter, result.
                    let letter = if r["colour"] == "white" { "w" } else { "b" };
                    assert_eq!(
                        row["results"][i],
                        format!("{them}{letter}{}", r["result"].as_str().unwrap()).as_str()
                    );
                }
                None => {
                    assert_eq!(r["played"], false, "{row}");
                    if r["bye"] == "pairing" {
                        byes += 1;
                        assert_eq!(row["results"][i], "PAB", "{row}");
                    } else {
                        assert_eq!(r["bye"], "zero", "{row}");
                        assert_eq!(row["results"][i], "-0", "{row}");
                    }
                }
            }
        }
        assert_eq!(sum, row["values"][0].as_f64().unwrap(), "{row}");
    }
    // 11 players: a pairing-allocated bye in each round before the
    // withdrawal (rounds 1 to 3), and the withdrawal's forfeit (both sides).
    assert_eq!(byes, 3, "{json}");
    assert_eq!(forfeits, 2, "{json}");
    let headings: Vec<&str> = json["headings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    assert_eq!(headings.first(), Some(&"Pts"), "{json}");
    assert!(headings.contains(&"BH-C1"), "{json}");

    // CSV, read by a real reader: a header row, a record per player with a
    // field per heading, the same cells as the JSON's.
    let csv_text = standings("csv");
    let mut reader = csv::ReaderBuilder::new().from_reader(csv_text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    let mut want = vec!["Rk".to_string(), "No".into(), "Name".into()];
    want.extend(columns.iter().cloned());
    want.extend(headings.iter().map(|h| h.to_string()));
    assert_eq!(header, want, "{csv_text}");
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), players, "{csv_text}");
    for (record, row) in records.iter().zip(rows) {
        assert_eq!(record.len(), header.len(), "{record:?}");
        assert_eq!(record.get(1).unwrap(), row["number"].to_string());
        for i in 0..rounds as usize {
            assert_eq!(record.get(3 + i).unwrap(), row["results"][i], "{record:?}");
        }
    }

    // Text: the same columns, aligned, a line per player.
    let text = standings("text");
    let lines: Vec<&str> = text.lines().collect();
    let head: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(head[..3], ["Rk", "No", "Name"], "{text}");
    assert_eq!(head[3..3 + rounds as usize], columns[..], "{text}");
    assert!(head.contains(&"BH-C1"), "{text}");
    assert_eq!(lines.len(), 4 + players, "{text}");
    let end = lines[2].find("Pts").unwrap() + 3;
    for line in &lines[4..] {
        assert!(line.contains("Player"), "{text}");
        // The points end under their heading on every line.
        assert!(
            line.chars().nth(end - 1).is_some_and(|c| c != ' '),
            "{text}"
        );
    }
    assert!(text.contains("(withdrawn)"), "{text}");

    // The event's page shows the same table, its headings scoped, in the
    // reader's words (Slovenian: `Mesto`, `K1` for round 1).
    let (status, page) = server.get(&format!("/events/{event}"));
    assert_eq!(status, 200, "{page}");
    for heading in columns.iter().map(String::as_str).chain(["Rk", "BH-C1"]) {
        assert!(
            page.contains(&format!("<th scope=\"col\">{heading}</th>")),
            "{heading}: {page}"
        );
    }
    let first = rows[0]["results"][0].as_str().unwrap();
    assert!(page.contains(&format!("<td>{first}</td>")), "{page}");
    assert!(page.contains("<td>PAB</td>"), "{page}");
    assert!(page.contains("PAB is the pairing-allocated bye"), "{page}");
    let (status, sl) = server.get(&format!("/events/{event}?lang=sl"));
    assert_eq!(status, 200, "{sl}");
    assert!(
        sl.contains("<th scope=\"col\">K1</th>")
            && sl.contains("<th scope=\"col\">Mesto</th>")
            && sl.contains("PAB je prosti krog"),
        "{sl}"
    );
}

/// A final standings mail of the same event: the Swiss crosstable in its
/// text, a column per round, and the cells explained.
pub(crate) fn the_final_mail_has_the_swiss_crosstable(text: &str, rounds: u32) {
    let header = text
        .lines()
        .find(|l| l.contains("Name") || l.contains("Ime"))
        .unwrap_or_else(|| panic!("no table: {text}"));
    let round_word = if header.contains("Ime") { "K" } else { "R" };
    for r in 1..=rounds {
        assert!(
            header.contains(&format!("{round_word}{r}")),
            "{header}\n{text}"
        );
    }
    assert!(header.contains("BH-C1"), "{text}");
    assert!(text.contains("PAB"), "{text}");
}
