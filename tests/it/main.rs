//! The integration tests, as one test binary: each file is a module, so that the crate is
//! linked once for all of them instead of once per file.

mod blocks_features;
mod cli;
mod extract_cli;
mod features_exact;
mod hostile;
mod hostile_cli;
mod model_files;
mod training;
