//! `pbrain-tengen`: the command-line front end. With no subcommand it
//! plays through the Gomocup protocol on stdin/stdout; the subcommands are
//! in `cli/`, one file per family.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off"))
        .target(env_logger::Target::Stderr)
        .init();
    let args = cli::Cli::parse();
    // The environment is read here, once; a bad value is a clear start-up
    // error, never a silent fall-back.
    match cli::Setup::from_env() {
        Ok(setup) => cli::run(args.command, setup),
        Err(e) => cli::fail(e),
    }
}
