//! `serve`: the analysis board in the browser (`tengen::serve`).

use super::{fail, Setup};
use clap::Args;
use std::net::IpAddr;
use std::process::ExitCode;
use tengen::serve::Config;

#[derive(Args)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port; the URL printed names it).
    #[arg(long, default_value_t = 8765)]
    port: u16,
    /// Address to listen on. Anything but a loopback address exposes the
    /// engine to the network: every machine that reaches it can use it.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Open the page in the default browser.
    #[arg(long)]
    open: bool,
    /// Threads of each search (default: every core).
    #[arg(long)]
    threads: Option<i64>,
    /// Transposition table of each search, MiB.
    #[arg(long, default_value_t = 128)]
    hash: usize,
    /// Searches at once (tabs analysing at the same time); each has its
    /// own table.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=16))]
    searches: u16,
}

pub fn run_serve(a: ServeArgs, setup: Setup) -> ExitCode {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as i64;
    let threads = match tengen::engine::thread_count(Some(a.threads.unwrap_or(cores))) {
        Ok(n) => n,
        Err(e) => return fail(format!("--threads {e}")),
    };
    if a.hash == 0 || a.hash > 1 << 16 {
        return fail(format!("--hash {}: 1 to 65536 MiB", a.hash));
    }
    if !a.host.is_loopback() {
        eprintln!(
            "warning: listening on {}: anyone who can reach this address can use the engine",
            a.host
        );
    }
    let config = Config {
        host: a.host,
        port: a.port,
        threads,
        hash_mib: a.hash,
        searches: a.searches as usize,
        caps: tengen::serve::Caps::default(),
    };
    let open = a.open;
    let result = tengen::serve::run(config, setup.params, setup.eval, |addr| {
        let host = if addr.ip().is_loopback() {
            "127.0.0.1".to_string()
        } else if addr.ip().is_unspecified() {
            "localhost".to_string()
        } else {
            match addr.ip() {
                IpAddr::V6(ip) => format!("[{ip}]"),
                ip => ip.to_string(),
            }
        };
        let url = format!("http://{host}:{}/", addr.port());
        outln!("tengen analysis board: {url}");
        outln!("Ctrl-C stops it.");
        if open {
            open_browser(&url);
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// Opens `url` with the system's opener; a failure is a warning.
fn open_browser(url: &str) {
    let opener: &[&str] = if cfg!(target_os = "macos") {
        &["open"]
    } else if cfg!(windows) {
        &["cmd", "/C", "start", ""]
    } else {
        &["xdg-open"]
    };
    let spawned = std::process::Command::new(opener[0])
        .args(&opener[1..])
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        eprintln!(
            "warning: cannot open a browser ({}: {e}); open {url} by hand",
            opener[0]
        );
    }
}
