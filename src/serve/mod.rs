//! `pbrain-tengen serve`: the analysis board in the browser. An HTTP
//! server (axum on tokio) with the page and its assets built into the
//! binary, a JSON API over the engine as a library, and server-sent events
//! for live analysis. The top layer beside the CLI: nothing below imports
//! it.
//!
//! What keeps it within bounds whatever the clients do: a fixed number of
//! connections (more are closed at once), a header timeout, a body limit,
//! and a fixed pool of searchers (each with its table, made at start-up)
//! that every search, solve or evaluation takes one of, or is refused
//! with 429 when none frees up within a few seconds. A search stops when
//! the request that started it goes away (its tab closed or moved on).
//! Requests from another origin are refused (see [`guard`]).

mod api;
pub mod game;

use crate::eval::Evaluator;
use crate::search::tt::TranspositionTable;
use crate::search::tuned::ParamSets;
use crate::search::Searcher;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// Connections served at once; one more is closed as soon as it is had.
pub const MAX_CONNECTIONS: usize = 64;
/// The largest request body (a record, a move list): 1 MiB.
pub const MAX_BODY: usize = 1 << 20;
/// How long a request's headers may take to arrive.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a request's body may take to arrive.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a search waits for a free searcher before it is refused.
pub const QUEUE_WAIT: Duration = Duration::from_secs(3);

/// What `serve` was started with.
#[derive(Clone, Debug)]
pub struct Config {
    /// The address the server listens on (127.0.0.1 unless asked).
    pub host: IpAddr,
    pub port: u16,
    /// Threads of each search.
    pub threads: usize,
    /// Table of each searcher, MiB.
    pub hash_mib: usize,
    /// Searches at once (the pool's searchers).
    pub searches: usize,
    /// The most a request may ask for (see [`Caps`]).
    pub caps: Caps,
}

/// The most a request may ask for: each search, solve or evaluation ends
/// within these whatever the request says.
#[derive(Clone, Debug)]
pub struct Caps {
    /// Time of an engine move, ms.
    pub move_ms: u64,
    /// Time of an analysis.
    pub analysis: Duration,
    /// Candidate lines of an analysis.
    pub lines: usize,
    /// Nodes of a threat solve.
    pub solve_nodes: u64,
    /// Nodes a position of the evaluation graph.
    pub graph_nodes: u64,
}

impl Default for Caps {
    fn default() -> Caps {
        Caps {
            move_ms: 60_000,
            analysis: Duration::from_secs(600),
            lines: 8,
            solve_nodes: 2_000_000,
            graph_nodes: 200_000,
        }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            host: IpAddr::from([127, 0, 0, 1]),
            port: 8765,
            threads: 1,
            hash_mib: 64,
            searches: 2,
            caps: Caps::default(),
        }
    }
}

/// A job for a searcher of the pool: it runs on the searcher's own
/// thread (a searcher stays on the thread that made it).
pub(crate) type Job = Box<dyn FnOnce(&mut Searcher, &Arc<AtomicBool>) + Send>;

/// A searcher of the pool: the channel to its thread and the flag that
/// stops its search.
pub(crate) struct Slot {
    jobs: mpsc::Sender<Job>,
    stop: Arc<AtomicBool>,
}

/// What every request shares.
pub struct Shared {
    config: Config,
    sets: ParamSets,
    pool: Mutex<Vec<Slot>>,
    permits: Arc<Semaphore>,
    /// Every searcher's stop flag, to stop them all at shut-down.
    flags: Vec<Arc<AtomicBool>>,
    closing: AtomicBool,
}

impl Shared {
    /// The pool of `config.searches` searchers, each on its own thread,
    /// their tables allocated (and written, for a parallel search) now;
    /// an error when the memory cannot be had.
    pub fn new(config: Config, sets: ParamSets, eval: Evaluator) -> Result<Shared, String> {
        let bytes = config.hash_mib.max(1).saturating_mul(1 << 20);
        let mut pool = Vec::new();
        let mut flags = Vec::new();
        for i in 0..config.searches.max(1) {
            let tt = TranspositionTable::try_new(bytes)
                .ok_or_else(|| format!("cannot allocate {} MiB for a table", config.hash_mib))?;
            let tt = Arc::new(tt);
            let (jobs, rx) = mpsc::channel::<Job>();
            let (params, eval, threads) = (
                sets.for_game(crate::Rule::Freestyle, 15),
                eval.clone(),
                config.threads.max(1),
            );
            let (made_tx, made_rx) = mpsc::channel();
            std::thread::Builder::new()
                .name(format!("board-search-{i}"))
                .stack_size(16 << 20)
                .spawn(move || {
                    let mut searcher = Searcher::with_eval(params, eval, 0);
                    searcher.tt = tt;
                    searcher.threads = threads;
                    searcher.tt.warm();
                    let stop = searcher.stop_flag();
                    if made_tx.send(stop.clone()).is_err() {
                        return;
                    }
                    // Until the pool (the server) goes.
                    while let Ok(job) = rx.recv() {
                        job(&mut searcher, &stop);
                    }
                })
                .map_err(|e| format!("cannot start a search thread: {e}"))?;
            let stop = made_rx
                .recv()
                .map_err(|_| "a search thread ended at start-up".to_string())?;
            flags.push(stop.clone());
            pool.push(Slot { jobs, stop });
        }
        Ok(Shared {
            permits: Arc::new(Semaphore::new(pool.len())),
            pool: Mutex::new(pool),
            flags,
            config,
            sets,
            closing: AtomicBool::new(false),
        })
    }

    /// Stops every search and refuses new ones.
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        for f in &self.flags {
            f.store(true, Ordering::SeqCst);
        }
    }
}

/// An API error: a 4xx status and a message the page shows.
#[derive(Debug)]
pub struct ApiError(pub StatusCode, pub String);

impl ApiError {
    pub fn bad(msg: impl Into<String>) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, msg.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.1 }).to_string();
        (self.0, [(header::CONTENT_TYPE, "application/json")], body).into_response()
    }
}

impl From<game::GameError> for ApiError {
    fn from(e: game::GameError) -> ApiError {
        ApiError::bad(e.0)
    }
}

/// The router: the page, its assets and the API, behind the origin
/// guard.
pub fn router(shared: Arc<Shared>) -> Router {
    api::routes(shared.clone())
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(shared, guard))
}

/// Whether `host` (a `Host` header) names this loopback server: a
/// page served from any other name (DNS rebinding) is refused.
fn loopback_host(host: &str, port: u16) -> bool {
    let names = [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    names.iter().any(|n| n.eq_ignore_ascii_case(host))
}

/// Refuses what a page of another site could send through the user's
/// browser: a request whose `Origin` is not this server's, one a browser
/// marks as cross-site or same-site (`Sec-Fetch-Site`: an image or a
/// form of another page), and, on a loopback server, one whose `Host` is
/// not this server's address (DNS rebinding). Tools that send none of
/// these headers (curl) are served.
async fn guard(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    req: Request,
    next: Next,
) -> Response {
    let text =
        |name: header::HeaderName| headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"));
    let host = text(header::HOST).unwrap_or("");
    if shared.config.host.is_loopback() && !loopback_host(host, shared.config.port) {
        return ApiError(
            StatusCode::FORBIDDEN,
            format!("host '{host}' refused: this board answers only to its own address"),
        )
        .into_response();
    }
    if let Some(origin) = text(header::ORIGIN) {
        if !origin.eq_ignore_ascii_case(&format!("http://{host}")) {
            return ApiError(
                StatusCode::FORBIDDEN,
                format!("cross-origin request from '{origin}' refused"),
            )
            .into_response();
        }
    }
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        if site != "same-origin" && site != "none" {
            return ApiError(
                StatusCode::FORBIDDEN,
                format!("{site} request refused: only this board's own page may call it"),
            )
            .into_response();
        }
    }
    // The body is read here, whole, within its time and size: a client
    // that sends less than it announced holds no connection for long.
    let (parts, body) = req.into_parts();
    let bytes = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY)).await
    {
        Ok(Ok(b)) => b,
        Ok(Err(_)) => {
            return ApiError(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request's body is over {} KiB, or broken",
                    MAX_BODY >> 10
                ),
            )
            .into_response()
        }
        Err(_) => {
            return ApiError(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request's body did not arrive within {} s",
                    BODY_TIMEOUT.as_secs()
                ),
            )
            .into_response()
        }
    };
    let req = Request::from_parts(parts, Body::from(bytes));
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    h.insert("x-content-type-options", "nosniff".parse().expect("header"));
    h.insert("x-frame-options", "DENY".parse().expect("header"));
    h.insert("referrer-policy", "no-referrer".parse().expect("header"));
    resp
}

/// Serves `router` on `listener` until `shutdown` completes: at most
/// [`MAX_CONNECTIONS`] connections, HTTP/1.1, [`HEADER_TIMEOUT`] for a
/// request's headers.
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let conns = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            a = listener.accept() => a,
        };
        let stream = match accepted {
            Ok((s, _)) => s,
            Err(e) => {
                // Out of descriptors and the like: wait, do not spin.
                log::warn!("accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = conns.clone().try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let service = TowerToHyperService::new(
            router
                .clone()
                .map_request(|r: Request<hyper::body::Incoming>| r.map(Body::new)),
        );
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .max_buf_size(64 << 10)
                .serve_connection(TokioIo::new(stream), service);
            if let Err(e) = conn.await {
                log::debug!("connection: {e}");
            }
            drop(permit);
        });
    }
}

/// Runs the board until Ctrl-C (or SIGTERM): binds, makes the pool of
/// searchers, calls `ready` with the address, serves.
pub fn run(
    config: Config,
    sets: ParamSets,
    eval: Evaluator,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    run_until(config, sets, eval, ready, shutdown_signal())
}

/// [`run`] until `shutdown` completes. The runtime has two worker
/// threads; each searcher of the pool has its own thread.
pub fn run_until(
    config: Config,
    sets: ParamSets,
    eval: Evaluator,
    ready: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(4)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    let result = rt.block_on(async {
        let addr = SocketAddr::new(config.host, config.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let local = listener
            .local_addr()
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        // The guard checks the port bound (port 0: any free one).
        let config = Config {
            port: local.port(),
            ..config
        };
        let shared = Arc::new(Shared::new(config, sets, eval)?);
        ready(local);
        let stop = shared.clone();
        serve_on(listener, router(shared), async move {
            shutdown.await;
            stop.close();
        })
        .await;
        Ok::<(), String>(())
    });
    rt.shutdown_timeout(Duration::from_secs(2));
    result
}

/// A board served from a thread of this process (for tests and for
/// programs that embed it).
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), String>>>,
}

impl Running {
    /// Stops the server and waits for it.
    pub fn stop(mut self) -> Result<(), String> {
        self.halt()
    }

    fn halt(&mut self) -> Result<(), String> {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| "the server's thread panicked".to_string())?,
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.halt();
    }
}

/// Starts the board on a thread of its own; returns once it listens.
pub fn start(config: Config, sets: ParamSets, eval: Evaluator) -> Result<Running, String> {
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let (addr_tx, addr_rx) = mpsc::channel();
    let thread = std::thread::spawn(move || {
        run_until(
            config,
            sets,
            eval,
            |a| {
                let _ = addr_tx.send(a);
            },
            async move {
                let _ = stop_rx.await;
            },
        )
    });
    match addr_rx.recv() {
        Ok(addr) => Ok(Running {
            addr,
            stop: Some(stop_tx),
            thread: Some(thread),
        }),
        Err(_) => Err(thread
            .join()
            .map_err(|_| "the server's thread panicked".to_string())?
            .err()
            .unwrap_or_else(|| "the server did not start".into())),
    }
}

/// Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
