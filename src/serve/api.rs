//! The board's routes: the page and its assets, and the JSON API
//! (docs/serve.md). Every search runs on a searcher of the pool, on a
//! blocking thread, and stops when its request goes away.

use super::game::{self, Game, GameSpec};
use super::{ApiError, Job, Shared, Slot, QUEUE_WAIT};
use crate::board::Board;
use crate::engine::Options;
use crate::search::{is_decisive, Limits, SearchResult, Searcher, WIN};
use crate::solver::{Mode, Outcome, SolveLimits, Solver};
use crate::types::{Color, Pos, Rule};
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit};

const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const STYLE_CSS: &str = include_str!("page/style.css");

/// The scale of the winning chance: `1 / (1 + exp(-score / K))`, the
/// scale the freestyle tables were fitted with (docs/evaluation.md).
pub const CHANCE_SCALE: f64 = 1183.0;

pub fn routes(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(index))
        .route(
            "/app.js",
            get(|| async { asset("text/javascript", APP_JS) }),
        )
        .route("/style.css", get(|| async { asset("text/css", STYLE_CSS) }))
        .route("/api/info", get(info))
        .route("/api/position", post(position))
        .route("/api/move", post(engine_move))
        .route("/api/analyze", get(analyze))
        .route("/api/solve", post(solve))
        .route("/api/graph", post(graph))
        .route("/api/import", post(import))
        .route("/api/export", post(export))
        .fallback(|uri: axum::http::Uri| async move {
            ApiError(
                StatusCode::NOT_FOUND,
                format!("no such page: {}", uri.path()),
            )
        })
        .method_not_allowed_fallback(|m: axum::http::Method, uri: axum::http::Uri| async move {
            ApiError(
                StatusCode::METHOD_NOT_ALLOWED,
                format!("{m} is not allowed on {}", uri.path()),
            )
        })
        .with_state(shared)
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn index() -> Response {
    let mut r = asset("text/html; charset=utf-8", INDEX_HTML);
    r.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        "default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'"
            .parse()
            .expect("header"),
    );
    r
}

/// A JSON body, or a 4xx that says what is wrong with it.
fn body<T>(b: Result<Json<T>, JsonRejection>) -> Result<T, ApiError> {
    b.map(|Json(t)| t)
        .map_err(|e| ApiError(e.status(), e.body_text()))
}

fn colour(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn moves(ps: &[Pos]) -> Vec<String> {
    ps.iter().map(|p| p.to_pos_string()).collect()
}

/// `1 / (1 + exp(-score / K))` for the side the score is of; a proven
/// win or loss is certain.
pub fn win_chance(score: i32) -> f64 {
    if is_decisive(score) {
        return if score > 0 { 1.0 } else { 0.0 };
    }
    1.0 / (1.0 + (-(score as f64) / CHANCE_SCALE).exp())
}

/// Plies to the end of a proven result (`None` for an ordinary score).
fn mate_plies(score: i32) -> Option<i32> {
    is_decisive(score).then(|| WIN - score.abs())
}

async fn info(State(s): State<Arc<Shared>>) -> Json<Value> {
    Json(json!({
        "engine": "tengen",
        "version": env!("CARGO_PKG_VERSION"),
        "threads": s.config.threads,
        "searches": s.config.searches,
        "hash_mib": s.config.hash_mib,
        "rules": Rule::ALL.iter().map(|r| r.name()).collect::<Vec<_>>(),
        "sizes": [game::MIN_SIZE, game::MAX_SIZE],
        "limits": {
            "move_ms": s.config.caps.move_ms,
            "analysis_ms": s.config.caps.analysis.as_millis() as u64,
            "lines": s.config.caps.lines,
            "solve_nodes": s.config.caps.solve_nodes,
            "graph_nodes": s.config.caps.graph_nodes,
        }
    }))
}

/// What the page shows of a position.
fn describe(g: &Game, board: &mut Board) -> Value {
    let winner = board.winner();
    let over = winner.is_some() || board.is_full();
    let forbidden = if g.rule == Rule::Renju && !over && board.side_to_move() == Color::Black {
        moves(&board.forbidden_cells())
    } else {
        Vec::new()
    };
    json!({
        "rule": g.rule.name(),
        "size": g.size,
        "moves": g.pos_text(),
        "ply": g.moves.len(),
        "to_move": colour(board.side_to_move()),
        "winner": winner.map(colour),
        "over": over,
        "full": board.is_full(),
        "forbidden": forbidden,
    })
}

async fn position(b: Result<Json<GameSpec>, JsonRejection>) -> Result<Json<Value>, ApiError> {
    let g = body(b)?.game()?;
    let mut board = g.replay()?;
    Ok(Json(describe(&g, &mut board)))
}

/// A searcher of the pool, given back when dropped.
struct Lease {
    shared: Arc<Shared>,
    slot: Option<Slot>,
    _permit: OwnedSemaphorePermit,
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            if let Ok(mut pool) = self.shared.pool.lock() {
                pool.push(slot);
            }
        }
    }
}

/// Takes a searcher, waiting up to [`QUEUE_WAIT`]; 429 when none frees
/// up (as many searches as the pool has are running).
async fn lease(shared: &Arc<Shared>) -> Result<Lease, ApiError> {
    let busy = || {
        ApiError(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "the engine is busy: {} searches are running (other tabs?); stop one or try again",
                shared.config.searches
            ),
        )
    };
    if shared.closing.load(Ordering::SeqCst) {
        return Err(ApiError(
            StatusCode::TOO_MANY_REQUESTS,
            "the board is shutting down".into(),
        ));
    }
    let permit = tokio::time::timeout(QUEUE_WAIT, shared.permits.clone().acquire_owned())
        .await
        .map_err(|_| busy())?
        .map_err(|_| busy())?;
    let slot = shared
        .pool
        .lock()
        .ok()
        .and_then(|mut p| p.pop())
        .ok_or_else(busy)?;
    slot.stop
        .store(shared.closing.load(Ordering::SeqCst), Ordering::SeqCst);
    Ok(Lease {
        shared: shared.clone(),
        slot: Some(slot),
        _permit: permit,
    })
}

/// Stops a lease's search when dropped while the search still runs: the
/// request (or the event stream) that started it went away.
struct StopGuard {
    stop: Arc<AtomicBool>,
    live: Arc<Mutex<bool>>,
}

impl Drop for StopGuard {
    fn drop(&mut self) {
        if let Ok(live) = self.live.lock() {
            if *live {
                self.stop.store(true, Ordering::SeqCst);
            }
        }
    }
}

/// The lease's searcher ended the job before it could answer.
fn cancelled() -> ApiError {
    ApiError(StatusCode::CONFLICT, "the search was cancelled".into())
}

/// Runs `job` on the lease's searcher (on its thread); the guard stops it
/// if the caller goes away first. The searcher goes back to the pool when
/// the job ends.
fn spawn_job<T: Send + 'static>(
    lease: Lease,
    job: impl FnOnce(&mut Searcher, &Arc<AtomicBool>) -> T + Send + 'static,
) -> Result<(StopGuard, oneshot::Receiver<T>), ApiError> {
    let slot = lease.slot.as_ref().ok_or_else(cancelled)?;
    let (stop, jobs) = (slot.stop.clone(), slot.jobs.clone());
    let live = Arc::new(Mutex::new(true));
    let guard = StopGuard {
        stop,
        live: live.clone(),
    };
    let (tx, rx) = oneshot::channel();
    let run: Job = Box::new(move |searcher, stop| {
        let r = job(searcher, stop);
        if let Ok(mut l) = live.lock() {
            *l = false;
        }
        drop(lease);
        let _ = tx.send(r);
    });
    jobs.send(run).map_err(|_| cancelled())?;
    Ok((guard, rx))
}

/// Runs `job` and waits for it.
async fn run_job<T: Send + 'static>(
    lease: Lease,
    job: impl FnOnce(&mut Searcher, &Arc<AtomicBool>) -> T + Send + 'static,
) -> Result<T, ApiError> {
    let (guard, rx) = spawn_job(lease, job)?;
    let r = rx.await.map_err(|_| cancelled());
    drop(guard);
    r
}

/// Sets the searcher's constants for the game's rule and board (and
/// forgets what it learnt under others).
fn prepare(searcher: &mut Searcher, shared: &Shared, g: &Game) {
    let p = shared.sets.for_game(g.rule, g.size);
    if p != searcher.params {
        searcher.params = p;
        searcher.clear();
    }
    searcher.root_excluded.clear();
}

/// A game that still goes on, or 400.
fn live_board(g: &Game) -> Result<Board, ApiError> {
    let board = g.replay()?;
    if board.is_won() {
        return Err(ApiError::bad(
            "the game is over: there is nothing to search",
        ));
    }
    if board.is_full() {
        return Err(ApiError::bad(
            "the board is full: there is nothing to search",
        ));
    }
    Ok(board)
}

#[derive(Deserialize)]
struct MoveReq {
    #[serde(flatten)]
    game: GameSpec,
    /// Milliseconds for the move (default 1000, at most the cap).
    time_ms: Option<u64>,
}

fn result_json(r: &SearchResult, time: Duration) -> Value {
    json!({
        "move": r.best.map(|p| p.to_pos_string()),
        "score": r.score,
        "mate": mate_plies(r.score),
        "win_chance": win_chance(r.score),
        "depth": r.depth,
        "nodes": r.nodes,
        "time_ms": time.as_millis() as u64,
        "pv": moves(&r.pv),
        "solved": r.solved,
    })
}

async fn engine_move(
    State(s): State<Arc<Shared>>,
    b: Result<Json<MoveReq>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let req = body(b)?;
    let g = req.game.game()?;
    let mut board = live_board(&g)?;
    let ms = req.time_ms.unwrap_or(1000).clamp(1, s.config.caps.move_ms);
    let lease = lease(&s).await?;
    let shared = s.clone();
    let (r, t) = run_job(lease, move |searcher, _| {
        let start = Instant::now();
        prepare(searcher, &shared, &g);
        let options = Options {
            timeout_turn: ms,
            ..Options::default()
        };
        let empty = board.width() * board.height() - board.ply();
        let limits = options.limits(empty, board.ply(), start.elapsed());
        let r = searcher.search(&mut board, &limits, |_| {});
        (r, start.elapsed())
    })
    .await?;
    if r.best.is_none() {
        return Err(ApiError(
            StatusCode::CONFLICT,
            "the search was stopped before it found a move".into(),
        ));
    }
    Ok(Json(result_json(&r, t)))
}

#[derive(Deserialize)]
struct AnalyzeQuery {
    rule: Option<String>,
    size: Option<usize>,
    moves: Option<String>,
    /// Candidate lines (multi-PV), 1 to the cap.
    lines: Option<usize>,
}

/// One progress event of an analysis.
fn progress(
    depth: i32,
    seldepth: i32,
    nodes: u64,
    start: Instant,
    lines: &[(i32, Vec<Pos>)],
) -> Value {
    let t = start.elapsed();
    let best = lines.first().map_or(0, |l| l.0);
    json!({
        "depth": depth,
        "seldepth": seldepth,
        "nodes": nodes,
        "nps": crate::search::nps(nodes, t),
        "time_ms": t.as_millis() as u64,
        "score": best,
        "mate": mate_plies(best),
        "win_chance": win_chance(best),
        "lines": lines.iter().map(|(score, pv)| json!({
            "move": pv.first().map(|p| p.to_pos_string()),
            "score": score,
            "mate": mate_plies(*score),
            "pv": moves(pv),
        })).collect::<Vec<_>>(),
    })
}

/// The analysis: iterative deepening with every completed iteration
/// sent; with several lines, each depth searches the position once per
/// line, leaving out the moves of the lines before (as `YXNBEST` does).
fn analysis(
    searcher: &mut Searcher,
    stop: &AtomicBool,
    board: &mut Board,
    lines: usize,
    cap: Duration,
    tx: &mpsc::Sender<Event>,
) -> Result<(), ()> {
    let start = Instant::now();
    let send = |v: Value| -> Result<(), ()> {
        match tx.try_send(Event::default().event("info").data(v.to_string())) {
            Err(mpsc::error::TrySendError::Closed(_)) => Err(()),
            // A slow reader misses an update, never the search's time.
            _ => Ok(()),
        }
    };
    let base = Limits {
        hard_time: Some(cap),
        ..Limits::default()
    };
    if lines <= 1 {
        let r = searcher.search(board, &base, |i| {
            if send(progress(
                i.depth,
                i.seldepth,
                i.nodes,
                start,
                &[(i.score, i.pv.clone())],
            ))
            .is_err()
            {
                stop.store(true, Ordering::SeqCst);
            }
        });
        if r.solved || r.depth == 0 {
            send(progress(
                r.depth,
                r.pv.len() as i32,
                r.nodes,
                start,
                &[(r.score, r.pv.clone())],
            ))?;
        }
        return Ok(());
    }
    let mut nodes = 0u64;
    for depth in 1..=(crate::search::MAX_PLY as i32 / 2) {
        let mut found: Vec<Pos> = Vec::new();
        let mut scored: Vec<(i32, Vec<Pos>)> = Vec::new();
        let mut proven = true;
        for _ in 0..lines {
            let left = cap.saturating_sub(start.elapsed());
            let limits = Limits {
                depth: Some(depth),
                hard_time: Some(left),
                ..Limits::default()
            };
            searcher.root_excluded = found.clone();
            let r = searcher.search(board, &limits, |_| {});
            nodes += r.nodes;
            if stop.load(Ordering::SeqCst) || left.is_zero() {
                return Ok(());
            }
            // Only a move the search played out (see the protocol's
            // YXNBEST): past the moves worth searching it has none.
            let Some(p) = r
                .best
                .filter(|p| !found.contains(p) && r.pv.first() == Some(p))
            else {
                break;
            };
            proven &= is_decisive(r.score);
            found.push(p);
            scored.push((r.score, r.pv));
        }
        searcher.root_excluded.clear();
        // Best first; ties keep the order found (the cell order of the
        // search's own tie-breaks).
        scored.sort_by_key(|(s, _)| std::cmp::Reverse(*s));
        send(progress(depth, depth, nodes, start, &scored))?;
        if scored.is_empty() || proven {
            break;
        }
    }
    Ok(())
}

async fn analyze(
    State(s): State<Arc<Shared>>,
    q: Result<Query<AnalyzeQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(q) = q.map_err(|e| ApiError(e.status(), e.body_text()))?;
    let g = GameSpec {
        rule: q.rule,
        size: q.size,
        moves: q.moves,
    }
    .game()?;
    let mut board = live_board(&g)?;
    let lines = q.lines.unwrap_or(1);
    let most = s.config.caps.lines;
    if !(1..=most).contains(&lines) {
        return Err(ApiError::bad(format!(
            "lines must be 1 to {most}, not {lines}"
        )));
    }
    let cap = s.config.caps.analysis;
    let lease = lease(&s).await?;
    let (tx, rx) = mpsc::channel::<Event>(32);
    let shared = s.clone();
    let (guard, _done) = spawn_job(lease, move |searcher, stop| {
        prepare(searcher, &shared, &g);
        let end = match analysis(searcher, stop, &mut board, lines, cap, &tx) {
            Ok(()) if stop.load(Ordering::SeqCst) => "stopped",
            Ok(()) => "done",
            Err(()) => "gone",
        };
        searcher.root_excluded.clear();
        let _ = tx.blocking_send(
            Event::default()
                .event("done")
                .data(json!({ "reason": end }).to_string()),
        );
    })?;
    // The stream owns the guard: when the page closes it (or the tab
    // goes), the search stops.
    let stream = futures_util::stream::unfold((rx, guard), |(mut rx, guard)| async move {
        let e = rx.recv().await?;
        Some((Ok::<Event, std::convert::Infallible>(e), (rx, guard)))
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(1)))
        .into_response())
}

#[derive(Deserialize)]
struct SolveReq {
    #[serde(flatten)]
    game: GameSpec,
    /// `vcf` (fours only) or `vct` (fours and threes, the default).
    mode: Option<String>,
    /// Node limit (default 1,000,000, at most the cap).
    nodes: Option<u64>,
}

async fn solve(
    State(s): State<Arc<Shared>>,
    b: Result<Json<SolveReq>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let req = body(b)?;
    let g = req.game.game()?;
    let mut board = live_board(&g)?;
    let attacker = colour(board.side_to_move());
    let mode = match req
        .mode
        .as_deref()
        .unwrap_or("vct")
        .to_ascii_lowercase()
        .as_str()
    {
        "vcf" => Mode::Vcf,
        "vct" => Mode::Vct,
        m => return Err(ApiError::bad(format!("mode must be vcf or vct, not '{m}'"))),
    };
    let nodes = req
        .nodes
        .unwrap_or(1_000_000)
        .clamp(1, s.config.caps.solve_nodes);
    let lease = lease(&s).await?;
    let sol = run_job(lease, move |_, stop| {
        let mut solver = Solver::new();
        solver.set_stop_flag(stop.clone());
        let limits = SolveLimits {
            mode,
            nodes,
            time: Some(Duration::from_secs(60)),
            max_entries: 4 * nodes as usize,
            ..SolveLimits::default()
        };
        solver.solve(&mut board, &limits)
    })
    .await?;
    let (result, line) = match &sol.outcome {
        Outcome::Win(line) => ("win", moves(line)),
        Outcome::NoWin => ("nowin", Vec::new()),
        Outcome::Unknown => ("unknown", Vec::new()),
    };
    Ok(Json(json!({
        "result": result,
        "mode": if mode == Mode::Vcf { "vcf" } else { "vct" },
        "attacker": attacker,
        "line": line,
        "plies": sol.plies,
        "nodes": sol.nodes,
        "node_limit": nodes,
        "time_ms": sol.time.as_millis() as u64,
    })))
}

#[derive(Deserialize)]
struct GraphReq {
    #[serde(flatten)]
    game: GameSpec,
    /// Nodes searched at each position (default 20,000, at most the cap).
    nodes: Option<u64>,
}

/// Black's score of every position of the game, from the empty board to
/// the last move: a node-limited search of each (so the same game gives
/// the same graph).
async fn graph(
    State(s): State<Arc<Shared>>,
    b: Result<Json<GraphReq>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let req = body(b)?;
    let g = req.game.game()?;
    let nodes = req
        .nodes
        .unwrap_or(20_000)
        .clamp(100, s.config.caps.graph_nodes.max(100));
    let lease = lease(&s).await?;
    let shared = s.clone();
    let scores = run_job(lease, move |searcher, stop| {
        prepare(searcher, &shared, &g);
        // From nothing learnt, on one thread (a parallel search is not
        // reproducible): the same game, the same graph.
        searcher.clear();
        let threads = std::mem::replace(&mut searcher.threads, 1);
        let mut out: Vec<i32> = Vec::new();
        // One board, a move played after each position's search (which
        // leaves it as it found it); the moves were checked by game().
        let Ok(mut board) = Board::new(g.size, g.rule) else {
            return out;
        };
        for ply in 0..=g.moves.len() {
            if ply > 0 && board.try_play(g.moves[ply - 1]).is_err() {
                break;
            }
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let stm = board.side_to_move();
            let score = if board.is_won() {
                -WIN
            } else if board.is_full() {
                0
            } else {
                let limits = Limits {
                    nodes: Some(nodes),
                    hard_time: Some(Duration::from_secs(30)),
                    ..Limits::default()
                };
                searcher.search(&mut board, &limits, |_| {}).score
            };
            out.push(if stm == Color::Black { score } else { -score });
        }
        searcher.threads = threads;
        out
    })
    .await?;
    Ok(Json(json!({
        "nodes": nodes,
        "scores": scores,
        "win_chance": scores.iter().map(|&s| win_chance(s)).collect::<Vec<_>>(),
    })))
}

#[derive(Deserialize)]
struct ImportQuery {
    rule: Option<String>,
    size: Option<usize>,
}

/// A record (PSQ, SGF or pos text, the request's body) as a game.
async fn import(
    q: Result<Query<ImportQuery>, QueryRejection>,
    text: Result<String, axum::extract::rejection::StringRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(q) = q.map_err(|e| ApiError(e.status(), e.body_text()))?;
    let text = text.map_err(|e| ApiError(e.status(), e.body_text()))?;
    // The page's rule and size, checked, are the record's defaults.
    let base = GameSpec {
        rule: q.rule,
        size: q.size,
        moves: None,
    }
    .game()?;
    let g = game::import(&text, base.rule, base.size)?;
    let mut board = g.replay()?;
    Ok(Json(describe(&g, &mut board)))
}

#[derive(Deserialize)]
struct ExportReq {
    #[serde(flatten)]
    game: GameSpec,
    /// `psq` or `sgf`.
    format: String,
}

async fn export(b: Result<Json<ExportReq>, JsonRejection>) -> Result<Response, ApiError> {
    let req = body(b)?;
    let g = req.game.game()?;
    let (text, kind, ext) = match req.format.to_ascii_lowercase().as_str() {
        "psq" => (game::to_psq(&g), "text/plain; charset=utf-8", "psq"),
        "sgf" => (game::to_sgf(&g), "application/x-go-sgf", "sgf"),
        f => {
            return Err(ApiError::bad(format!(
                "format must be psq or sgf, not '{f}'"
            )))
        }
    };
    let name = format!(
        "attachment; filename=\"tengen-{}-{}.{ext}\"",
        g.rule.name(),
        g.moves.len()
    );
    Ok((
        [
            (header::CONTENT_TYPE, kind.to_string()),
            (header::CONTENT_DISPOSITION, name),
        ],
        text,
    )
        .into_response())
}
