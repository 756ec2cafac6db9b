//! The network's arithmetic, its incremental sums and its files.

use super::*;
use crate::eval::Evaluator;
use crate::types::Pos;
use rand::{Rng, SeedableRng};

#[test]
fn the_layers_give_the_same_output_in_every_build() {
    // `forward` runs through `avx2_method!` (the AVX2 build where
    // the processor has it); the plain body must agree on random
    // sums (inside and outside the clipped range) and threat masks.
    let mut rng = rand::rngs::StdRng::seed_from_u64(515);
    let net = Net::random(Rule::Freestyle, 9);
    for head in net.heads.iter() {
        for _ in 0..2000 {
            let own: Acc = std::array::from_fn(|_| rng.gen_range(-2000..6000));
            let other: Acc = std::array::from_fn(|_| rng.gen_range(-2000..6000));
            let mask = rng.gen_range(0..1usize << MASK_BITS);
            assert_eq!(
                head.forward(&own, &other, mask),
                head.forward_body(&own, &other, mask)
            );
        }
    }
}

/// Plays up to `plies` random moves on `b` (attached to `e`, whose
/// network for the rule is `net`), checking after each that the
/// board's sums give the network's output from scratch and that the
/// evaluation is the tables plus the network; with `unmake`, undoes
/// a move now and then and checks again. Returns the outputs seen.
fn walk_random_game(
    e: &Evaluator,
    net: &Net,
    b: &mut Board,
    rng: &mut rand::rngs::StdRng,
    plies: usize,
    unmake: bool,
) -> std::collections::HashSet<i32> {
    let rule = b.rule();
    let limit = crate::eval::EVAL_LIMIT;
    let mut outputs = std::collections::HashSet::new();
    for _ in 0..plies {
        let cands: Vec<_> = b.candidates().iter().collect();
        if cands.is_empty() || b.is_won() {
            break;
        }
        b.make(cands[rng.gen_range(0..cands.len())]);
        let out = net.output(b);
        outputs.insert(out);
        assert_eq!(out, net.output_from_scratch(b), "{rule} {b:?}");
        let table = crate::eval::evaluate(b, e.weights(rule));
        if table.abs() < limit {
            assert_eq!(e.evaluate(b), (table + out).clamp(-limit, limit));
        }
        if unmake && rng.gen_range(0..4) == 0 {
            b.unmake();
            assert_eq!(net.output(b), net.output_from_scratch(b));
        }
    }
    outputs
}

#[test]
fn incremental_accumulators_equal_sums_from_scratch() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(31);
    for rule in Rule::ALL {
        let net = Arc::new(Net::random(rule, rule.index() as u64));
        let e = Evaluator::shipped().with_net(net.clone());
        for size in [15, 20] {
            let mut b = Board::new(size, rule).unwrap();
            e.attach(&mut b);
            let outputs = walk_random_game(&e, &net, &mut b, &mut rng, 60, true);
            b.check_consistency().unwrap();
            // A random network is not constant.
            assert!(outputs.len() > 10, "{rule}: {outputs:?}");
        }
    }
}

#[test]
fn incremental_line_shapes_equal_sums_from_scratch() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(37);
    for rule in [Rule::Freestyle, Rule::Renju] {
        let net = Arc::new(Net::random_with(rule, 3 + rule.index() as u64, true));
        assert!(net.vectors.lines());
        let e = Evaluator::shipped().with_net(net.clone());
        for size in [7, 15, 22] {
            for _ in 0..3 {
                let mut b = Board::new(size, rule).unwrap();
                e.attach(&mut b);
                let outputs = walk_random_game(&e, &net, &mut b, &mut rng, 90, true);
                b.check_consistency().unwrap();
                assert!(outputs.len() > 5, "{rule} {size}: {outputs:?}");
            }
        }
        // The line shapes count: the same network without them reads
        // another value on the same position.
        let mut b = Board::new(15, rule).unwrap();
        for m in ["h8", "i9", "h9", "h10", "g7"] {
            b.make(Pos::parse_pos(m).unwrap());
        }
        let mut plain = (*net).clone();
        let mut v = (*net.vectors).clone();
        v.set_lines(false);
        plain.vectors = Arc::new(v);
        assert_ne!(plain.accumulators(&b), net.accumulators(&b));
    }
}

#[test]
fn shipped_networks_read_and_fit_their_tables() {
    // Every file is played by some rule, and each names the rule its
    // entries say it was fitted for (`Net::shipped` reads each once).
    for (i, text) in FILES.iter().enumerate() {
        let rules: Vec<Rule> = SHIPPED.iter().filter(|s| s.2 == i).map(|s| s.1).collect();
        assert!(!rules.is_empty(), "file {i} is played by no rule");
        let named = Net::parse(text).unwrap().rule;
        assert!(
            rules.iter().all(|&r| r == named),
            "file {i}: {named} or {rules:?}"
        );
    }
    let e = Evaluator::shipped();
    for rule in Rule::ALL {
        match Net::shipped(rule) {
            None => assert!(e.net(rule).is_none()),
            Some(n) => {
                let n = n.unwrap();
                assert_eq!(n.rule, rule);
                assert!(
                    !n.notes.is_empty(),
                    "{rule}: a shipped network names its data"
                );
                let net = e.net(rule).unwrap().clone();
                // Along a random game on its boards: the shipped
                // evaluation is the tables plus the network, from the
                // board's sums as from scratch.
                let mut rng = rand::rngs::StdRng::seed_from_u64(rule.index() as u64);
                let mut b = Board::new(net.boards.0.max(15), rule).unwrap();
                e.attach(&mut b);
                let outputs = walk_random_game(&e, &net, &mut b, &mut rng, 40, false);
                assert!(outputs.len() > 5, "{rule}: {outputs:?}");
            }
        }
        assert!(e.clone().without_nets().net(rule).is_none());
    }
}

#[test]
fn a_network_plays_only_on_its_boards() {
    let mut net = Net::random(Rule::Freestyle, 4);
    net.boards = (15, 15);
    let net = Arc::new(net);
    let e = Evaluator::shipped().without_nets().with_net(net.clone());
    for (size, fits) in [(15, true), (20, false), (13, false)] {
        let mut b = Board::new(size, Rule::Freestyle).unwrap();
        e.attach(&mut b);
        let c = size as i32 / 2;
        for (dx, dy) in [(0, 0), (1, 1), (1, 0), (0, 2), (2, 1)] {
            b.make(crate::types::Pos::new((c + dx) as usize, (c + dy) as usize));
        }
        let tables = crate::eval::evaluate(&b, e.weights(Rule::Freestyle));
        assert_eq!(net.fits(&b), fits);
        assert_eq!(b.code_vectors().is_some(), fits);
        if fits {
            assert_eq!(e.evaluate(&b), tables + net.output(&b));
            assert_ne!(net.output(&b), 0);
        } else {
            assert_eq!(e.evaluate(&b), tables);
        }
    }
}

/// Random stones within `reach` of the centre.
fn central_cells(rng: &mut rand::rngs::StdRng, reach: i32) -> Vec<(i32, i32)> {
    let n = rng.gen_range(1..9);
    let mut cells = Vec::new();
    while cells.len() < n {
        let d = (rng.gen_range(-reach..=reach), rng.gen_range(-reach..=reach));
        if !cells.contains(&d) {
            cells.push(d);
        }
    }
    cells
}

/// `cells` played around the centre of a `size` board attached to `e`.
fn centred(e: &Evaluator, rule: Rule, size: usize, cells: &[(i32, i32)]) -> Board {
    let mut b = Board::new(size, rule).unwrap();
    e.attach(&mut b);
    let c = size as i32 / 2;
    for &(dx, dy) in cells {
        b.make(crate::types::Pos::new((c + dx) as usize, (c + dy) as usize));
    }
    b
}

#[test]
fn a_network_trained_on_one_board_sees_the_same_centre_on_another() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(77);
    // An empty board gives the trained board's output, every rule and
    // size (the shifts are made for exactly that).
    for rule in Rule::ALL {
        let mut net = Net::random(rule, 12);
        net.set_trained(Some(15));
        let e = Evaluator::shipped()
            .without_nets()
            .with_net(Arc::new(net.clone()));
        let want = net.output(&centred(&e, rule, 15, &[]));
        for size in [5, 9, 14, 16, 20, 22] {
            let b = centred(&e, rule, size, &[]);
            assert_eq!(net.output(&b), want, "{rule} {size}");
        }
    }
    // Freestyle windows reach 4 cells each way: stones within 1 of the
    // centre of a 19x19 board change no cell whose window meets an
    // edge, so bigger boards give exactly its outputs, incrementally
    // and from scratch.
    let mut net = Net::random(Rule::Freestyle, 5);
    net.set_trained(Some(19));
    assert_eq!(net.trained(), Some(19));
    let e = Evaluator::shipped()
        .without_nets()
        .with_net(Arc::new(net.clone()));
    for _ in 0..40 {
        let cells = central_cells(&mut rng, 1);
        let want = net.output(&centred(&e, Rule::Freestyle, 19, &cells));
        for size in [20, 21, 22] {
            let b = centred(&e, Rule::Freestyle, size, &cells);
            assert!(net.fits(&b));
            assert_eq!(net.output(&b), want, "{size} {cells:?}");
            assert_eq!(net.output_from_scratch(&b), want);
        }
    }
    // From 15x15, where the edges are near, the shift brings the
    // outputs on 20x20 closer to those of 15x15 than no shift does.
    for rule in [Rule::Freestyle, Rule::Renju] {
        let mut net = Net::random(rule, 12);
        net.set_trained(Some(15));
        let e = Evaluator::shipped()
            .without_nets()
            .with_net(Arc::new(net.clone()));
        let mut plain = net.clone();
        plain.set_trained(None);
        let (mut shifted, mut unshifted) = (0i64, 0i64);
        for _ in 0..40 {
            let cells = central_cells(&mut rng, 2);
            let want = net.output(&centred(&e, rule, 15, &cells)) as i64;
            let b = centred(&e, rule, 20, &cells);
            shifted += (net.output(&b) as i64 - want).abs();
            unshifted += (plain.output_from_scratch(&b) as i64 - want).abs();
        }
        assert!(shifted < unshifted, "{rule}: {shifted} against {unshifted}");
    }
    // The line is written and read back; a side out of range is refused.
    let mut net = Net::random(Rule::Freestyle, 3);
    net.set_trained(Some(15));
    let text = net.to_text();
    assert!(text.contains("\ntrained 15\n"));
    assert_eq!(Net::parse(&text).unwrap().trained(), Some(15));
    let bad = text.replace("trained 15", "trained 40");
    assert!(Net::parse(&bad).unwrap_err().0.contains("trained 40"));
    // Rectangular boards are not shifted: the network leaves them.
    let b = Board::new_rect(20, 15, Rule::Freestyle).unwrap();
    assert!(!net.fits(&b));
}

#[test]
fn paused_sums_come_back() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let net = Arc::new(Net::random(Rule::Freestyle, 2));
    let e = Evaluator::shipped().with_net(net.clone());
    let mut b = crate::perft::position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7j10").unwrap();
    e.attach(&mut b);
    let before = net.output(&b);
    b.pause_acc();
    for _ in 0..6 {
        let cands: Vec<_> = b.candidates().iter().collect();
        b.make(cands[rng.gen_range(0..cands.len())]);
    }
    for _ in 0..6 {
        b.unmake();
    }
    b.resume_acc();
    assert_eq!(net.output(&b), before);
    b.check_consistency().unwrap();
}

#[test]
fn the_forward_pass_is_the_documented_arithmetic() {
    let mut h = Head::zero();
    // Input 0 (own channel 0) and input CHANNELS + 1 (other channel 1).
    h.set_w1(0, 0, 1024); // 1.0
    h.set_w1(0, CHANNELS + 1, -512); // -0.5
    h.b1[0] = 1 << 17; // 0.125
    h.wm[3][0] = 1 << 18; // 0.25 when mask bit 3 is set
    h.wo[0] = 8 * 100; // 100 units
    h.bo = 8192 * 7; // 7 units
    let mut own = [0; CHANNELS];
    let mut other = [0; CHANNELS];
    own[0] = 2048; // 0.5
    other[1] = 12000; // clipped to 1.0
                      // h = clamp(0.5 - 0.5 + 0.125, 0, 1) = 0.125: 100 * 0.125 + 7 = 19.5 -> 20.
    assert_eq!(h.forward(&own, &other, 0), 20);
    // With bit 3: h = 0.375: 37.5 + 7 = 44.5 -> 45 (halves round up).
    assert_eq!(h.forward(&own, &other, 1 << 3), 45);
    // Inputs below zero are clipped: h = 0.5 + 0.125 = 0.625: 69.5 -> 70.
    other[1] = -16000;
    assert_eq!(h.forward(&own, &other, 0), 70);
    // The hidden unit is clipped at 1: 100 + 7.
    own[0] = 4096;
    h.b1[0] = 1 << 20;
    assert_eq!(h.forward(&own, &other, 0), 107);
    // x = round(13 / 4) = 3, h = round(2032 * 3 / 1024) = 6 (of 1024):
    // 100 * 6/1024 + 7 = 7.6 -> 8; 9 / 4 rounds to 2 (h 4: 7.4 -> 7).
    h.set_w1(0, 0, 2032);
    h.b1[0] = 0;
    own[0] = 13;
    assert_eq!(h.forward(&own, &other, 0), 8);
    own[0] = 9;
    assert_eq!(h.forward(&own, &other, 0), 7);
    // A large sum.
    own[0] = 1 << 24;
    h.b1[0] = 0;
    assert_eq!(h.forward(&own, &other, 0), 107);
    own[0] = 9;
    h.wo[0] = -8 * 100;
    h.bo = 0;
    h.b1[0] = 511;
    own[0] = 0;
    // h = round(511 / 1024) = 0: the output is 0; with b1 = 32 << 10,
    // h = 32/1024: -3.125 -> -3.
    assert_eq!(h.forward(&own, &other, 0), 0);
    h.b1[0] = 32 << 10;
    assert_eq!(h.forward(&own, &other, 0), -3);
}

#[test]
fn files_round_trip_and_bad_files_are_refused() {
    let net = Net::random(Rule::Renju, 5);
    let mut with_notes = net.clone();
    with_notes.notes = vec!["data: 10 games".into(), "date: today".into()];
    with_notes.boards = (15, 15);
    let text = with_notes.to_text();
    let back = Net::parse(&text).unwrap();
    assert_eq!(back.rule, Rule::Renju);
    assert_eq!(back.notes, with_notes.notes);
    assert_eq!(back.boards, (15, 15));
    // Without a boards line: every size.
    let all = Net::parse(&text.replace("boards 15-15\n", "")).unwrap();
    assert_eq!(all.boards, (MIN_SIZE, MAX_SIZE));
    assert!(*back.vectors == *net.vectors);
    assert!(back.heads == net.heads);
    assert_eq!(back.to_text(), text);
    // With line shapes: the features line names them, the vectors
    // come back with them.
    let lined = Net::random_with(Rule::Freestyle, 6, true);
    let lined_text = lined.to_text();
    assert!(lined_text.contains(&format!("features {FEATURES_LINES} ")));
    let back = Net::parse(&lined_text).unwrap();
    assert!(back.vectors.lines() && *back.vectors == *lined.vectors);
    assert_eq!(back.to_text(), lined_text);
    // A file whose vectors do not match its features line.
    let short = lined_text.replace(FEATURES_LINES, FEATURES);
    let e = Net::parse(&short).expect_err("too many vectors accepted");
    assert!(e.0.contains("more than"), "{}", e.0);

    let refused = |t: &str, why: &str| {
        let e = Net::parse(t)
            .err()
            .unwrap_or_else(|| panic!("accepted: {why}"));
        assert!(e.0.contains(why), "{why}: {}", e.0);
    };
    refused("", "empty file");
    refused("tengen-eval 2\n", "not a tengen network file");
    refused(
        &text.replace("tengen-net 1", "tengen-net 2"),
        "format version 2 (this build reads 1)",
    );
    refused(
        &text.replace("rule renju", "rule chess"),
        "expected 'rule NAME'",
    );
    refused(
        &text.replace("channels 32", "channels 16"),
        "does not fit this build",
    );
    refused(&text.replace("\nend\n", "\n"), "truncated");
    refused(
        &text.replace("boards 15-15", "boards 16-15"),
        "expected MIN-MAX",
    );
    refused(
        &text.replace("boards 15-15", "boards 4-15"),
        "expected MIN-MAX",
    );
    refused(&text.replace("\nbo white", "\nbo black"), "given twice");
    let w1 = text.lines().find(|l| l.starts_with("w1 black")).unwrap();
    refused(
        &text.replace(w1, &format!("{w1} 5")),
        "more than 2048 values",
    );
    let mut words: Vec<&str> = w1.split(' ').collect();
    words[7] = "9000";
    refused(
        &text.replace(w1, &words.join(" ")),
        "bad value '9000' at entry 5",
    );
    // A vector entry beyond 16 bits.
    let embed = text.lines().find(|l| l.starts_with("embed white")).unwrap();
    let mut words: Vec<&str> = embed.split(' ').collect();
    words[2 + CHANNELS] = "32768";
    refused(
        &text.replace(embed, &words.join(" ")),
        &format!("bad value '32768' at entry {CHANNELS}"),
    );
    let short = &w1[..w1.rfind(' ').unwrap()];
    refused(&text.replace(w1, short), "2047 values, expected 2048");
    let wm = text.lines().find(|l| l.starts_with("wm white")).unwrap();
    refused(&text.replace(&format!("{wm}\n"), ""), "no wm white table");
}
