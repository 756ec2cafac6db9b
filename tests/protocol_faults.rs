//! The engine faults a hostile manager found (issue 28, items 1-7), each
//! reproduced through the real binary. Time bounds here are far from what
//! the fixed engine needs (a fault would take the whole turn of a minute).

mod common;

use common::{parse_move, Engine};
use std::time::Duration;

const LONG_TURN: &str = "INFO timeout_turn 60000";
const PROMPT: Duration = Duration::from_secs(20);

fn started(size: usize, extra: &[&str]) -> Engine {
    let mut e = Engine::spawn();
    e.send(&format!("START {size}"));
    assert_eq!(e.reply(), "OK");
    for line in extra {
        e.send(line);
    }
    e
}

#[test]
fn board_colours_follow_the_fields_whatever_the_order() {
    // Both sides have an open four: ours (field 1) on row 7, theirs
    // (field 2) on row 12. Equal counts: we are black and to move, and we
    // complete our own five, whichever stones are listed first.
    let ours = ["5,7,1", "6,7,1", "7,7,1", "8,7,1"];
    let theirs = ["5,12,2", "6,12,2", "7,12,2", "8,12,2"];
    let theirs_first: Vec<&str> = theirs.iter().chain(ours.iter()).copied().collect();
    let ours_first: Vec<&str> = ours.iter().chain(theirs.iter()).copied().collect();
    let alternate: Vec<&str> = ours
        .iter()
        .zip(theirs.iter())
        .flat_map(|(a, b)| [*a, *b])
        .collect();
    for order in [theirs_first, ours_first, alternate] {
        let mut e = started(15, &["INFO timeout_turn 1000"]);
        e.send(&format!("BOARD\n{}\nDONE", order.join("\n")));
        let r = e.reply();
        let m = parse_move(&r).unwrap_or_else(|| panic!("{r}"));
        assert!(m == (4, 7) || m == (9, 7), "{order:?}: {r}");
    }
    // One stone more for the opponent: we are white, still to move, and
    // still take our five.
    let mut e = started(15, &["INFO timeout_turn 1000"]);
    e.send("BOARD\n5,12,2\n6,12,2\n7,12,2\n8,12,2\n0,0,2\n5,7,1\n6,7,1\n7,7,1\n8,7,1\nDONE");
    let m = parse_move(&e.reply()).unwrap();
    assert!(m == (4, 7) || m == (9, 7), "{m:?}");
}

#[test]
fn a_stop_before_the_search_starts_still_stops_it() {
    // END in the same write as the TURN: exit at once, saying nothing more.
    let mut e = started(15, &[]);
    e.send(&format!("{LONG_TURN}\nTURN 7,7\nEND"));
    assert!(e.exits_within(PROMPT), "END queued behind TURN was lost");
    assert_eq!(e.raw_line_within(Duration::from_millis(100)), None);
    // YXSTOP queued behind TURN: the move comes at once.
    let mut e = started(15, &[]);
    e.send(&format!("{LONG_TURN}\nTURN 7,7\nYXSTOP"));
    let r = e
        .reply_within(PROMPT)
        .expect("a move after the queued YXSTOP");
    let first = parse_move(&r).unwrap_or_else(|| panic!("{r}"));
    // The stop does not carry over to the next command: a short search
    // still answers with a move of its own. (Our next stone goes on a cell
    // the engine did not take: a search stopped that early may answer any
    // cell near the stones, 9,9 among them, and a TURN on it is an error.)
    let next = if first == (9, 9) { "5,5" } else { "9,9" };
    e.send(&format!("INFO timeout_turn 300\nTURN {next}"));
    let r = e.reply();
    assert!(parse_move(&r).is_some(), "{r}");
}

#[test]
fn end_inside_a_block_ends_and_a_broken_block_leaves_the_engine_playing() {
    let mut e = started(15, &[]);
    e.send("BOARD\n7,7,1\nEND");
    assert!(
        e.exits_within(PROMPT),
        "END inside BOARD must end the engine"
    );
    assert_eq!(e.raw_line_within(Duration::from_millis(100)), None);
    // A bad line: an error, and the engine still plays.
    let mut e = started(15, &["INFO timeout_turn 300"]);
    e.send("BOARD\n7,7,1\nhello\nDONE");
    assert!(
        e.reply().starts_with("ERROR BOARD"),
        "a bad block is an error"
    );
    e.send("TURN 8,8");
    assert!(parse_move(&e.reply()).is_some());
}

#[test]
fn swap2_stops_at_end_and_yxstop_and_answers_small_boards() {
    let mut e = started(15, &[LONG_TURN]);
    e.send("SWAP2BOARD\nDONE\nEND");
    assert!(e.exits_within(PROMPT), "END during SWAP2BOARD");
    assert_eq!(e.raw_line_within(Duration::from_millis(100)), None);
    // YXSTOP stops every one of its searches, not only the first.
    let mut e = started(15, &[LONG_TURN]);
    e.send("SWAP2BOARD\nDONE\nYXSTOP");
    let r = e.reply_within(PROMPT).expect("an answer after YXSTOP");
    assert_eq!(r.split_whitespace().count(), 3, "{r}");
    // 5x5 and 6x6: three stones on the board.
    for size in [5, 6] {
        let mut e = started(size, &["INFO timeout_turn 500"]);
        e.send("SWAP2BOARD\nDONE");
        let r = e.reply();
        let moves: Vec<(usize, usize)> = r.split_whitespace().filter_map(parse_move).collect();
        assert_eq!(moves.len(), 3, "{size}x{size}: '{r}'");
        assert!(moves.iter().all(|&(x, y)| x < size && y < size), "{r}");
    }
}

#[test]
fn an_empty_board_with_a_blocked_centre_gets_a_move() {
    let mut e = started(15, &["INFO timeout_turn 300", "YXBLOCK\n7,7\nDONE"]);
    e.send("BEGIN");
    let r = e.reply();
    let m = parse_move(&r).unwrap_or_else(|| panic!("{r}"));
    assert_ne!(m, (7, 7));
    // An empty BOARD too.
    e.send("RESTART");
    assert_eq!(e.reply(), "OK");
    e.send("YXBLOCK\n7,7\nDONE\nBOARD\nDONE");
    let m = parse_move(&e.reply()).expect("a move");
    assert_ne!(m, (7, 7));
}

#[test]
fn a_huge_memory_limit_and_a_huge_line_are_survived() {
    let mut e = started(
        15,
        &["INFO max_memory 1000000000000", "INFO timeout_turn 300"],
    );
    e.send("BEGIN");
    assert!(parse_move(&e.reply()).is_some());
    // A line of 3 MiB: an error, and the engine goes on.
    let long = "x".repeat(3 << 20);
    e.send(&long);
    let r = e.reply();
    assert!(
        r.starts_with("ERROR line longer than"),
        "{}",
        &r[..r.len().min(80)]
    );
    e.send("ABOUT");
    assert!(e.reply().contains("tengen"));
    // CR alone ends a line too.
    e.send("ABOUT\rABOUT\r");
    assert!(e.reply().contains("tengen") && e.reply().contains("tengen"));
}

/// Issue 65, item 7: loose inputs are refused with an `ERROR` line, the
/// state kept.
#[test]
fn impossible_swap2_positions_bad_info_values_and_a_blocked_board() {
    let mut e = started(15, &[]);
    // Field 1 is the engine's stone: after 3 stones it plays white, after
    // 5 too.
    for (stones, says) in [
        ("7,7,1\n8,8,2\n9,9,1\n10,10,2\n", "4 stones"),
        ("7,7,1\n8,8,2\n9,9,1\n10,10,2\n5,5,1\n1,1,2\n", "6 stones"),
        ("7,7,2\n8,8,2\n9,9,2\n", "3 black stones of 3"),
        ("7,7,1\n8,8,2\n9,9,1\n", "1 black stones of 3"),
        (
            "7,7,2\n8,7,2\n9,7,2\n10,7,2\n11,7,2\n",
            "5 black stones of 5",
        ),
    ] {
        e.send(&format!("SWAP2BOARD\n{stones}DONE"));
        let r = e.reply();
        assert!(r.starts_with("ERROR SWAP2BOARD") && r.contains(says), "{r}");
    }
    // The openings it proposes avoid blocked cells; none fits: ERROR.
    e.send("YXBLOCK\n7,7\n8,8\n6,6\n7,8\n8,7\n6,7\n7,6\n8,6\n6,8\nDONE");
    e.send("SWAP2BOARD\nDONE");
    assert_eq!(
        e.reply(),
        "ERROR SWAP2BOARD: no opening shape fits the cells left free"
    );
    e.send("YXBLOCKRESET");
    for (info, says) in [
        ("INFO timeout_turn -5", "a negative value"),
        ("INFO max_node -1", "a negative value"),
        ("INFO rule -3", "not a Gomocup rule"),
        ("INFO rule 100", "not a Gomocup rule"),
        ("INFO rule abc", "not a whole number"),
        ("INFO timeout_turn fast", "not a whole number"),
    ] {
        e.send(info);
        let r = e.reply();
        assert!(
            r.starts_with("ERROR INFO") && r.contains(says),
            "{info}: {r}"
        );
    }
    // The values sent before stay; the rule bits managers send (2: a
    // continuous game, Yixin-Board's renju) and a negative time_left
    // (the clock ran out) are taken without a word.
    e.send("INFO rule 2");
    e.send("INFO time_left -100");
    e.send("INFO timeout_turn 100");
    e.send("YXSHOWFORBID");
    assert!(e.reply().starts_with("FORBID"), "renju is on");
    e.send("BEGIN");
    assert!(parse_move(&e.reply()).is_some());
    // Every empty cell blocked: said so, not "the board is full".
    let mut b = started(5, &[]);
    let cells: Vec<String> = (0..25).map(|i| format!("{},{}", i % 5, i / 5)).collect();
    b.send(&format!("YXBLOCK\n{}\nDONE", cells.join("\n")));
    b.send("BEGIN");
    let r = b.reply();
    assert!(r.contains("every empty cell is blocked"), "{r}");
    // The solver never names a blocked cell as ours: with the two ends of
    // black's open three blocked, no win through them is reported.
    let mut s = started(15, &["INFO timeout_turn 300"]);
    s.send("YXBLOCK\n6,7\n10,7\n5,7\n11,7\nDONE");
    s.send("BOARD\n7,7,1\n0,0,2\n8,7,1\n0,14,2\n9,7,1\n14,0,2\nDONE");
    let mut lines = Vec::new();
    let r = loop {
        let l = s.raw_line_within(Duration::from_secs(10)).expect("a reply");
        if !l.starts_with("MESSAGE") {
            break l;
        }
        lines.push(l);
    };
    for l in lines.iter().filter(|l| l.contains("win by threats")) {
        for cell in ["g8", "k8", "f8", "l8"] {
            assert!(!l.contains(cell), "{l}");
        }
    }
    assert!(!["6,7", "10,7", "5,7", "11,7"].contains(&r.as_str()), "{r}");
}
