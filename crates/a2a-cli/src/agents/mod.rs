//! The built-in agents of `a2a serve`, behind one [`Agent`] so the server is built once.

mod conformance;
mod echo;
mod exec;
pub(crate) mod llm;
mod select;

pub(crate) use self::exec::CommandNotFound;
use self::exec::Exec;

/// One of the built-in agents.
#[derive(Debug)]
pub(crate) enum Agent {
    /// `--agent echo`.
    Echo(echo::Echo),
    /// `--agent exec -- CMD ARGS…`.
    Exec(Exec),
    /// `--agent conformance`.
    Conformance(conformance::Conformance),
    /// `--agent llm`.
    Llm(a2a_run::RunAgent),
}
