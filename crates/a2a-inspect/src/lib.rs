//! `a2a inspect`: a local web page for looking at A2A 1.0 agents and gateways.
//!
//! The page talks only to this process; this process calls agents through `a2a-client`, so
//! an agent needs no CORS settings and credentials never reach the browser.

pub mod validate;
