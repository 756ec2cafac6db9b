//! The one place the crate allows `unsafe`: calling code compiled for
//! AVX2 after checking at run time that the processor has it. With the
//! network, the accumulators' update and the network's layers are about a
//! quarter of a search's instructions, and AVX2 does their vector
//! arithmetic in half as many; the builds stay portable (x86-64 without
//! AVX2, 32-bit Windows) because the plain version runs wherever AVX2 is
//! missing. Both versions are the same Rust code
//! ([`Board::update_acc_body`], [`Head::forward_body`]) in integers, so
//! they give the same results.

#![allow(unsafe_code)]

use crate::board::{Acc, Board};
use crate::eval::net::Head;

/// Does this processor have AVX2 (checked once, then cached by std)?
#[inline]
pub fn has_avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
}

/// [`Board::update_acc_body`] compiled for AVX2. Only call it where
/// [`has_avx2`] is true.
#[inline]
pub(crate) fn update_acc_avx2(board: &mut Board) {
    assert!(has_avx2());
    // SAFETY: the processor has AVX2 (checked above), the only
    // requirement of a `target_feature(enable = "avx2")` function.
    unsafe { update_acc_with_avx2(board) }
}

#[target_feature(enable = "avx2")]
unsafe fn update_acc_with_avx2(board: &mut Board) {
    board.update_acc_body();
}

/// [`Head::forward_body`] compiled for AVX2. Only call it where
/// [`has_avx2`] is true.
#[inline]
pub(crate) fn forward_avx2(head: &Head, own: &Acc, other: &Acc, mask: usize) -> i32 {
    assert!(has_avx2());
    // SAFETY: as above.
    unsafe { forward_with_avx2(head, own, other, mask) }
}

#[target_feature(enable = "avx2")]
unsafe fn forward_with_avx2(head: &Head, own: &Acc, other: &Acc, mask: usize) -> i32 {
    head.forward_body(own, other, mask)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::net::Net;
    use crate::eval::Evaluator;
    use crate::types::{Color, Pos, Rule};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;

    #[test]
    fn the_avx2_builds_give_the_plain_builds_results() {
        if !has_avx2() {
            eprintln!("no AVX2 here: only the plain build runs, nothing to compare");
            return;
        }
        // Random games with a random network: after every move the sums
        // updated by the AVX2 build equal those of the plain build, and so
        // do the network's outputs.
        let net = Arc::new(Net::random(Rule::Freestyle, 7));
        let eval = Evaluator::shipped().with_net(net.clone());
        let mut rng = StdRng::seed_from_u64(77);
        let mut moves = 0;
        for _ in 0..20 {
            let mut a = Board::new(15, Rule::Freestyle).unwrap();
            let mut b = Board::new(15, Rule::Freestyle).unwrap();
            eval.attach(&mut a);
            eval.attach(&mut b);
            while !a.is_won() && !a.is_full() && a.ply() < 80 {
                let cands: Vec<Pos> = a.candidates().iter().collect();
                let p = cands[rng.gen_range(0..cands.len())];
                a.make(p);
                b.pause_acc();
                b.make(p);
                b.resume_acc();
                b.update_acc_body();
                for c in [Color::Black, Color::White] {
                    assert_eq!(a.acc(c), b.acc(c), "{c:?} after {p}");
                }
                let me = a.side_to_move();
                for head in net.heads.iter() {
                    for mask in [0, 1, 0x155, 0x7FF, rng.gen_range(0..0x800)] {
                        let (own, other) = (a.acc(me), a.acc(me.opposite()));
                        assert_eq!(
                            forward_avx2(head, own, other, mask),
                            head.forward_body(own, other, mask)
                        );
                    }
                }
                moves += 1;
            }
            while a.ply() > 0 {
                a.unmake();
                b.unmake();
                for c in [Color::Black, Color::White] {
                    assert_eq!(a.acc(c), b.acc(c));
                }
            }
        }
        assert!(moves > 200, "{moves}");
    }
}
