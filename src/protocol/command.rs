//! Parsing of Gomocup protocol lines into commands. Case-insensitive,
//! tolerant of extra spaces; never panics.

/// One command from the manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Start(usize),
    RectStart(usize, usize),
    Restart,
    Begin,
    Turn(usize, usize),
    /// Followed by `x,y,f` lines and `DONE`.
    Board,
    /// Yixin-Board: set the position without searching.
    YxBoard,
    /// Followed by `x,y,f` lines and `DONE`.
    Swap2Board,
    Takeback(usize, usize),
    Play(usize, usize),
    Info(String, String),
    End,
    About,
    /// `STOP` or `YXSTOP`.
    Stop,
    YxShowForbid,
    YxHashClear,
    YxNBest(usize),
    YxBlock,
    YxBlockUndo,
    YxBlockReset,
    /// A command this engine does not know.
    Unknown(String),
    /// A known command with bad arguments: the error text.
    Malformed(String),
}

/// Every command word [`parse`] knows (Gomocup and Yixin-Board), for
/// tests and fuzzers that build command streams.
pub const COMMAND_WORDS: [&str; 22] = [
    "START",
    "RECTSTART",
    "RESTART",
    "BEGIN",
    "TURN",
    "BOARD",
    "YXBOARD",
    "SWAP2BOARD",
    "TAKEBACK",
    "PLAY",
    "INFO",
    "END",
    "ABOUT",
    "STOP",
    "YXSTOP",
    "YXSHOWFORBID",
    "YXHASHCLEAR",
    "YXNBEST",
    "YXBLOCK",
    "YXBLOCKUNDO",
    "YXBLOCKRESET",
    "DONE",
];

/// Parses "x,y" (spaces allowed around the numbers).
pub fn parse_xy(s: &str) -> Option<(usize, usize)> {
    let mut it = s.split(',');
    let x = it.next()?.trim().parse::<usize>().ok()?;
    let y = it.next()?.trim().parse::<usize>().ok()?;
    if it.next().is_some() {
        return None;
    }
    Some((x, y))
}

/// Parses a BOARD line "x,y,f".
pub fn parse_board_line(s: &str) -> Option<(usize, usize, u8)> {
    let mut it = s.split(',');
    let x = it.next()?.trim().parse::<usize>().ok()?;
    let y = it.next()?.trim().parse::<usize>().ok()?;
    let f = it.next()?.trim().parse::<u8>().ok()?;
    if it.next().is_some() || !(1..=3).contains(&f) {
        return None;
    }
    Some((x, y, f))
}

/// Parses one line (already trimmed, not empty).
pub fn parse(line: &str) -> Command {
    let line = line.trim();
    let (word, rest) = match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line, ""),
    };
    let word = word.to_ascii_uppercase();
    let xy = |name: &str, f: fn(usize, usize) -> Command| match parse_xy(rest) {
        Some((x, y)) => f(x, y),
        None => Command::Malformed(format!("{name} expects x,y, got '{rest}'")),
    };
    match word.as_str() {
        "START" => match rest.parse::<usize>() {
            Ok(n) => Command::Start(n),
            Err(_) => Command::Malformed(format!("START expects a board size, got '{rest}'")),
        },
        "RECTSTART" => match parse_xy(rest) {
            Some((w, h)) => Command::RectStart(w, h),
            None => Command::Malformed(format!("RECTSTART expects width,height, got '{rest}'")),
        },
        "RESTART" => Command::Restart,
        "BEGIN" => Command::Begin,
        "TURN" => xy("TURN", Command::Turn),
        "TAKEBACK" => xy("TAKEBACK", Command::Takeback),
        "PLAY" => xy("PLAY", Command::Play),
        "BOARD" => Command::Board,
        "YXBOARD" => Command::YxBoard,
        "SWAP2BOARD" => Command::Swap2Board,
        "INFO" => {
            let (key, value) = match rest.find(char::is_whitespace) {
                Some(i) => (&rest[..i], rest[i..].trim()),
                None => (rest, ""),
            };
            Command::Info(key.to_ascii_lowercase(), value.to_string())
        }
        "END" => Command::End,
        "ABOUT" => Command::About,
        "STOP" | "YXSTOP" => Command::Stop,
        "YXSHOWFORBID" => Command::YxShowForbid,
        "YXHASHCLEAR" => Command::YxHashClear,
        "YXNBEST" => match rest.parse::<usize>() {
            Ok(n) if n >= 1 => Command::YxNBest(n),
            _ => Command::Malformed(format!("YXNBEST expects a count, got '{rest}'")),
        },
        "YXBLOCK" => Command::YxBlock,
        "YXBLOCKUNDO" => Command::YxBlockUndo,
        "YXBLOCKRESET" => Command::YxBlockReset,
        _ => Command::Unknown(line.chars().take(100).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands_in_any_case_and_spacing() {
        assert_eq!(parse("START 15"), Command::Start(15));
        assert_eq!(parse("start   20 "), Command::Start(20));
        assert_eq!(parse("RectStart 20,15"), Command::RectStart(20, 15));
        assert_eq!(parse("turn 7, 8"), Command::Turn(7, 8));
        assert_eq!(parse("TURN 7 ,8"), Command::Turn(7, 8));
        assert_eq!(
            parse("INFO timeout_turn 1000"),
            Command::Info("timeout_turn".into(), "1000".into())
        );
        assert_eq!(
            parse("info RULE 4"),
            Command::Info("rule".into(), "4".into())
        );
        assert_eq!(parse("yxstop"), Command::Stop);
        assert_eq!(parse("YXNBEST 3"), Command::YxNBest(3));
        assert!(matches!(parse("TURN 7"), Command::Malformed(_)));
        assert!(matches!(parse("TURN -1,3"), Command::Malformed(_)));
        assert!(matches!(parse("START x"), Command::Malformed(_)));
        assert!(matches!(parse("FOO bar"), Command::Unknown(_)));
        assert_eq!(parse_board_line("3,4,1"), Some((3, 4, 1)));
        assert_eq!(parse_board_line("3, 4 ,2"), Some((3, 4, 2)));
        assert_eq!(parse_board_line("3,4,4"), None);
        assert_eq!(parse_board_line("3,4"), None);
    }
}
