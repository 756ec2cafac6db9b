//! The whole pipeline on a tiny generated set: self-play games, a short
//! fit whose loss falls, export, and the engine's integer inference equal
//! to the trainer's quantised network on every sample position.

use std::sync::Arc;
use tengen::board::Board;
use tengen::eval::net::Net;
use tengen::eval::Evaluator;
use tengen::learn::data::{read_games, GameRecord};
use tengen::learn::selfplay::{run, SelfplayConfig};
use tengen::types::Rule;
use tengen_train::{
    build_datasets, fit, fit_k, float_output, quantise, reference_output, Dataset, FitConfig, Model,
};

fn games(rule: Rule, n: usize) -> Vec<GameRecord> {
    let cfg = SelfplayConfig {
        rule,
        games: n,
        nodes: 300,
        balance_nodes: 100,
        threads: 2,
        size: 11,
        hash_bytes: 1 << 20,
        ..SelfplayConfig::default()
    };
    let mut buf = Vec::new();
    run(&cfg, &mut buf, |_, _| {}).unwrap();
    read_games(&mut buf.as_slice()).unwrap()
}

/// The board of sample `i` of `d`, replayed from its game.
fn board_of(games: &[GameRecord], d: &Dataset, i: usize) -> Board {
    let (g, ply) = d.origin[i];
    let g = &games[g as usize];
    let mut b = Board::new_rect(g.width, g.height, g.rule).unwrap();
    for &p in &g.moves[..ply as usize] {
        b.try_play(p).unwrap();
    }
    b
}

fn pipeline(rule: Rule, lines: bool) {
    let games = games(rule, 80);
    let (train, validation) = build_datasets(&games, rule, 0.2, lines);
    assert!(
        train.len() > 400 && !validation.is_empty(),
        "{}",
        train.len()
    );
    let k = fit_k(&train);
    let cfg = FitConfig {
        rule,
        epochs: 8,
        batch: 128,
        lr: 1e-2,
        ..FitConfig::default()
    };
    let model = Model::new(rule, 3, train.features).unwrap();
    let mut losses = Vec::new();
    let mut checkpoints = Vec::new();
    fit(
        &model,
        &train,
        &validation,
        &cfg,
        k,
        |p| {
            if let Some(v) = p.validation {
                losses.push((p.epoch, p.train, v));
            }
        },
        |_, epoch| {
            checkpoints.push(epoch);
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(losses.len(), cfg.epochs + 1);
    // A checkpoint after the first epoch and each that lowered the
    // validation loss.
    let improved: Vec<usize> = (1..losses.len())
        .filter(|&e| e == 1 || (0..e).all(|i| losses[e].2 < losses[i].2))
        .collect();
    assert_eq!(checkpoints, improved, "{losses:?}");
    let (first, last) = (losses[0], losses[losses.len() - 1]);
    assert!(
        last.1 < first.1 * 0.98,
        "{rule}: training loss did not fall: {losses:?}"
    );

    // Export, read back as the engine reads it.
    let net = quantise(&model, vec![format!("test fit, {rule}")]).unwrap();
    let net = Arc::new(Net::parse(&net.to_text()).unwrap());
    assert_eq!(net.vectors.lines(), lines);
    assert!(
        net.heads[0].wo.iter().any(|&w| w != 0),
        "the output layer moved"
    );
    let eval = Evaluator::shipped().with_net(net.clone());

    let idx: Vec<usize> = (0..train.len()).step_by(7).collect();
    let want = reference_output(&net, &train, &idx).unwrap();
    let float = float_output(&model, &train, &idx).unwrap();
    let mut distinct = std::collections::HashSet::new();
    for (r, &i) in idx.iter().enumerate() {
        let mut b = board_of(&games, &train, i);
        eval.attach(&mut b);
        let got = net.output(&b);
        assert_eq!(
            got as i64, want[r],
            "{rule}: sample {i} {:?}",
            train.origin[i]
        );
        assert_eq!(net.output_from_scratch(&b), got);
        distinct.insert(got);
        // Rounding to integers moves the output little.
        let tolerance = 4.0 + 0.05 * float[r].abs();
        assert!(
            (got as f32 - float[r]).abs() <= tolerance,
            "{rule}: sample {i}: float {} quantised {got}",
            float[r]
        );
    }
    assert!(distinct.len() > 5, "{rule}: outputs {distinct:?}");
}

#[test]
fn freestyle_pipeline() {
    pipeline(Rule::Freestyle, false);
}

#[test]
fn freestyle_pipeline_with_line_shapes() {
    pipeline(Rule::Freestyle, true);
}

#[test]
fn renju_pipeline_with_a_network_per_colour() {
    pipeline(Rule::Renju, false);
}

#[test]
fn renju_pipeline_with_line_shapes() {
    pipeline(Rule::Renju, true);
}
