//! Prints the threat class of each move of a line for the side playing it.
//! cargo run --release --example classes -- POSITION LINE [RULE]
use tengen::perft::position_from_moves;
use tengen::types::parse_pos_list;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let rule = a
        .get(3)
        .map(|s| s.parse().unwrap())
        .unwrap_or(tengen::Rule::Freestyle);
    let mut b = position_from_moves(15, rule, &a[1]).unwrap();
    for p in parse_pos_list(&a[2]).unwrap() {
        let me = b.side_to_move();
        println!(
            "{} {:?} own {:?} opp {:?}",
            p.to_pos_string(),
            me,
            b.class(me, p),
            b.class(me.opposite(), p)
        );
        b.make(p);
    }
}
