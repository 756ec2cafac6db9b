//! The constants each game plays: the defaults of [`Params`], the set
//! tuned for the game's rule and board ([`TUNED`]), and the overrides of
//! `TENGEN_PARAMS` on top ([`ParamSets`]).

use super::params::Params;
use crate::types::{Rule, MIN_SIZE};

/// Environment variable with parameter overrides, `name=value,...`, read
/// once by the command line (for A/B matches and tuning).
pub const PARAMS_ENV: &str = "TENGEN_PARAMS";

impl Params {
    /// The defaults with `name=value,...` overrides applied.
    pub fn with_overrides(spec: &str) -> Result<Params, String> {
        let mut p = Params::default();
        p.apply(&parse_overrides(spec)?)?;
        Ok(p)
    }

    /// Sets each `(name, value)` in turn.
    fn apply(&mut self, overrides: &[(String, i64)]) -> Result<(), String> {
        for (name, v) in overrides {
            self.set(name, *v)?;
        }
        Ok(())
    }

    /// The search constants of a game of `rule` on a board `size` wide:
    /// the defaults (tuned on freestyle 15x15) with the set tuned for that
    /// rule and board, where one has passed its SPRT ([`TUNED`]).
    pub fn for_game(rule: Rule, size: usize) -> Params {
        let mut p = Params::default();
        if let Some(t) = TunedSet::of(rule, size) {
            let set = parse_overrides(t.values).expect("a tuned set is valid");
            p.apply(&set).expect("a tuned set is in range");
        }
        p
    }
}

/// `name=value,...` read into pairs (names and ranges are checked when
/// they are applied).
fn parse_overrides(spec: &str) -> Result<Vec<(String, i64)>, String> {
    let mut out = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| format!("'{item}' is not name=value"))?;
        let v: i64 = value
            .trim()
            .parse()
            .map_err(|_| format!("bad value in '{item}'"))?;
        out.push((name.trim().to_string(), v));
    }
    Ok(out)
}

/// The set of SPSA run spsa-f15-b (`tuning/spsa-f15-b.json`).
const SPSA_F15_B: &str = "rfp_depth=6,rfp_margin=86,razor_depth=0,razor_margin=85,mcp_scale=112,\
                          lmr_depth=4,lmr_index=4,aspiration=62,vcf_nodes=1868,forced_free=5,\
                          width=14,root_width=18,solve_share=8,refute_share=14";

/// spsa-f15-b with the values of run spsa-f15-c over it
/// (`tuning/spsa-f15-c.json`, which started from spsa-f15-b), less
/// the one parameter of a retired idea it tuned.
const SPSA_F15_C: &str = "rfp_depth=7,rfp_margin=76,rfp_base=1,razor_depth=0,razor_margin=85,\
                          mcp_scale=117,mcp_improving=25,lfh_margin=13,lmr_depth=2,lmr_index=4,\
                          aspiration=53,vcf_nodes=1868,forced_free=5,width=15,root_width=18,\
                          solve_share=8,refute_share=14";

/// A set of search constants tuned for one rule and a range of board
/// widths, over the defaults. How each was made and the SPRT that kept
/// it: `tuning/README.md` and docs/strength.md.
pub struct TunedSet {
    pub rule: Rule,
    /// The boards it plays, from this wide to this wide (see
    /// [`Params::for_game`]).
    pub sizes: (usize, usize),
    /// `name=value,...` over [`Params::default`].
    pub values: &'static str,
    /// The SPSA runs in `tuning/` whose values it is, each over the one
    /// before.
    pub runs: &'static [&'static str],
}

const F15_C: &[&str] = &["spsa-f15-b", "spsa-f15-c"];

/// The tuned sets, each kept by an SPRT on its own rule and board. The
/// boards of a rule's set are those its network plays (freestyle up to
/// 20 wide; 21 and 22 keep the defaults).
pub const TUNED: &[TunedSet] = &[
    TunedSet {
        rule: Rule::Freestyle,
        sizes: (MIN_SIZE, 20),
        values: SPSA_F15_C,
        runs: F15_C,
    },
    TunedSet {
        rule: Rule::Standard,
        sizes: (MIN_SIZE, 20),
        values: SPSA_F15_C,
        runs: F15_C,
    },
    TunedSet {
        rule: Rule::Renju,
        sizes: (MIN_SIZE, 20),
        values: SPSA_F15_B,
        runs: &["spsa-f15-b"],
    },
    TunedSet {
        rule: Rule::Caro,
        sizes: (MIN_SIZE, 20),
        values: SPSA_F15_C,
        runs: F15_C,
    },
];

impl TunedSet {
    /// The set a game of `rule` on a board `size` wide plays, if any.
    pub fn of(rule: Rule, size: usize) -> Option<&'static TunedSet> {
        TUNED.iter().find(|t| t.rule == rule && t.fits(size))
    }

    /// Whether it plays boards `size` wide.
    pub fn fits(&self, size: usize) -> bool {
        (self.sizes.0..=self.sizes.1).contains(&size)
    }
}

/// Search constants for every game a process plays: each game's tuned set
/// ([`Params::for_game`]) with the `TENGEN_PARAMS` overrides on top, so an
/// A/B test or a tuner changes the same constants in every rule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParamSets {
    overrides: Vec<(String, i64)>,
}

impl ParamSets {
    /// Overrides `name=value,...`, checked now (names and ranges).
    pub fn with_overrides(spec: &str) -> Result<ParamSets, String> {
        let overrides = parse_overrides(spec)?;
        Params::default().apply(&overrides)?;
        Ok(ParamSets { overrides })
    }

    /// The constants of a game of `rule` on a board `size` wide.
    pub fn for_game(&self, rule: Rule, size: usize) -> Params {
        let mut p = Params::for_game(rule, size);
        p.apply(&self.overrides)
            .expect("overrides were checked when read");
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::params::Tunable;
    use crate::types::MAX_SIZE;

    #[test]
    fn overrides_are_parsed_and_checked() {
        let p = Params::with_overrides("rfp_depth=3, vcf_local=0,width=6").unwrap();
        assert_eq!((p.rfp_depth, p.vcf_local, p.width), (3, false, 6));
        assert_eq!(Params::with_overrides("").unwrap(), Params::default());
        assert!(Params::with_overrides("nope=1").is_err());
        assert!(Params::with_overrides("width").is_err());
        assert!(Params::with_overrides("width=-2").is_err());
        let e = Params::with_overrides("width=0").unwrap_err();
        assert!(e.contains("out of range (1 to 64)"), "{e}");
        // A retired experiment is no parameter.
        assert!(Params::with_overrides("lmr_scale=150").is_err());
    }

    #[test]
    fn every_tuned_set_is_valid_and_overrides_go_on_top() {
        for t in TUNED {
            let set = parse_overrides(t.values).unwrap();
            assert!(!set.is_empty(), "{:?}: an empty set", t.rule);
            Params::default().apply(&set).unwrap();
            assert!(!t.runs.is_empty());
            assert!(t.sizes.0 <= t.sizes.1, "{:?}: an empty range", t.rule);
        }
        // At most one set a rule and board.
        for rule in Rule::ALL {
            for size in MIN_SIZE..=MAX_SIZE {
                let n = TUNED
                    .iter()
                    .filter(|t| t.rule == rule && t.fits(size))
                    .count();
                assert!(n <= 1, "{rule:?} {size}: {n} sets");
            }
        }
        let rules = [
            Rule::Freestyle,
            Rule::Standard,
            Rule::Renju,
            Rule::Caro,
            Rule::CaroExact,
        ];
        let sets = ParamSets::with_overrides("width=7, rfp_depth=2").unwrap();
        for rule in rules {
            for size in [5, 15, 17, 18, 20, 22] {
                let base = Params::for_game(rule, size);
                let p = sets.for_game(rule, size);
                assert_eq!((p.width, p.rfp_depth), (7, 2), "{rule:?} {size}");
                let mut q = p.clone();
                q.width = base.width;
                q.rfp_depth = base.rfp_depth;
                assert_eq!(q, base, "only the overrides differ");
                assert_eq!(
                    ParamSets::default().for_game(rule, size),
                    base,
                    "{rule:?} {size}"
                );
            }
        }
        // A game plays the defaults with its rule and board's tuned set on
        // top, if it has one; freestyle, standard, renju and caro 15x15 and
        // 20x20 have one, 22x22 (where no network plays) not.
        for rule in rules {
            for size in [15, 20] {
                let mut want = Params::default();
                if let Some(t) = TunedSet::of(rule, size) {
                    want.apply(&parse_overrides(t.values).unwrap()).unwrap();
                }
                assert_eq!(Params::for_game(rule, size), want, "{rule:?} {size}");
            }
        }
        assert_ne!(Params::for_game(Rule::Freestyle, 15), Params::default());
        // Freestyle up to 20 wide, standard and caro play spsa-f15-c;
        // renju spsa-f15-b, which freestyle played before.
        let f15b = Params::with_overrides(SPSA_F15_B).unwrap();
        assert_ne!(Params::for_game(Rule::Freestyle, 15), f15b);
        assert_eq!(
            Params::for_game(Rule::Freestyle, 15),
            Params::with_overrides(SPSA_F15_C).unwrap()
        );
        assert_eq!(
            Params::for_game(Rule::Freestyle, 20),
            Params::for_game(Rule::Freestyle, 15)
        );
        assert_eq!(Params::for_game(Rule::Freestyle, 22), Params::default());
        assert_eq!(
            Params::for_game(Rule::Standard, 15),
            Params::for_game(Rule::Freestyle, 15)
        );
        assert_eq!(Params::for_game(Rule::Renju, 15), f15b);
        assert_eq!(
            Params::for_game(Rule::Caro, 15),
            Params::for_game(Rule::Freestyle, 15)
        );
        assert_eq!(Params::for_game(Rule::CaroExact, 15), Params::default());
        assert!(ParamSets::with_overrides("width=0").is_err());
        assert!(ParamSets::with_overrides("nope=1").is_err());
    }

    /// The `values` of a run's state file in `tuning/`.
    fn run_values(run: &str) -> Vec<(String, i64)> {
        let path = format!("{}/tuning/{run}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let start = text.find("\"values\": \"").expect("a values line") + 11;
        let len = text[start..].find('"').unwrap();
        parse_overrides(&text[start..start + len]).unwrap()
    }

    #[test]
    fn every_tuned_set_is_the_values_of_its_runs() {
        // Each run's values over the one before, on the defaults, less
        // the parameters of retired ideas: what the set plays.
        for t in TUNED {
            let mut want = Params::default();
            let mut retired = 0;
            for run in t.runs {
                for (name, v) in run_values(run) {
                    if Params::default().get(&name).is_none() {
                        retired += 1;
                        continue;
                    }
                    want.set(&name, v).unwrap_or_else(|e| panic!("{run}: {e}"));
                }
            }
            // spsa-f15-c tuned one constant of singular extensions, since
            // deleted; no other run tuned a parameter that is gone.
            let expected = usize::from(t.runs.contains(&"spsa-f15-c"));
            assert_eq!(retired, expected, "{:?}", t.runs);
            assert_eq!(
                Params::with_overrides(t.values).unwrap(),
                want,
                "{:?} {:?}",
                t.rule,
                t.runs
            );
        }
    }

    /// The parameters at their off value in the defaults and in every
    /// tuned set: ideas that play nowhere.
    fn off_everywhere(tunables: &[Tunable]) -> Vec<&'static str> {
        let sets: Vec<Params> = std::iter::once(Params::default())
            .chain(
                TUNED
                    .iter()
                    .map(|t| Params::with_overrides(t.values).unwrap()),
            )
            .collect();
        tunables
            .iter()
            .filter(|t| {
                t.off
                    .is_some_and(|off| sets.iter().all(|p| p.get(t.name) == Some(off)))
            })
            .map(|t| t.name)
            .collect()
    }

    #[test]
    fn no_parameter_is_off_in_the_defaults_and_every_tuned_set() {
        // An idea that plays nowhere is tested on a branch and lives there
        // until it passes (docs/testing.md): main holds no off switch.
        let off = off_everywhere(Params::TUNABLES);
        assert!(
            off.is_empty(),
            "off in the defaults and in every tuned set: {off:?}; delete them \
             (their row in docs/strength.md names the commit that held them)"
        );
        // The check sees one: `tt` at 0 would be off everywhere.
        let mut fake = Params::TUNABLES.to_vec();
        fake.iter_mut()
            .filter(|t| t.name == "tt")
            .for_each(|t| t.off = Some(1));
        assert_eq!(off_everywhere(&fake), ["tt"]);
    }
}
