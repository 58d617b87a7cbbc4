use std::process::ExitCode;

use plinth_server::config::{Cli, Command, GenCommand, TypesLanguage};
use plinth_server::startup;

fn main() -> ExitCode {
    plinth_server::memory::limit_malloc_arenas();
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(run()),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> ExitCode {
    // The embedded cluster's parent-death signal is tied to the thread that
    // starts it: everything below runs on this (the main) thread's future.
    let result = match Cli::load() {
        Ok(cli) => match cli.command {
            Command::Serve(args) => startup::serve(args).await,
            Command::Migrate(args) => startup::migrate(args).await,
            Command::Keys(args) => startup::keys(args),
            Command::Seed(args) => startup::seed(args).await,
            Command::Admin(args) => startup::admin(args).await,
            Command::Backup(args) => startup::backup(args).await,
            Command::Restore(args) => startup::restore(args).await,
            Command::Functions { action } => plinth_server::functions::run(action).await,
            Command::Gen {
                what:
                    GenCommand::Types {
                        language: TypesLanguage::Typescript(args),
                    },
            } => startup::gen_types(args).await,
        },
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
