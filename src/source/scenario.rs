//! Scenario files for the time simulation, read from disk: the TOML parsed by [`crate::model::sim_file`], and
//! the key files its streams name (relative to the scenario; a built-in example's key files are built in)
//! loaded with the usual loaders, each key's count giving its share. Used by `shardlens simulate` and the
//! app's File > Open scenario.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::model::examples::time::example_key_file;
use crate::model::sim_file::{KeySource, Scenario, parse};
use crate::model::simulate::Keys;

/// Why a scenario could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioFileError {
    // Each reason is part of the message and not also its `source()`, which the CLI's `{:#}` would say again.
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("in {label}: {error}")]
    Parse {
        label: String,
        error: crate::model::sim_file::ScenarioError,
    },
    /// A stream's trace could not be read or replayed.
    #[error("{label}: trace of stream {stream}: {message}")]
    Trace {
        label: String,
        stream: usize,
        message: super::Message,
    },
    /// A stream's key file could not be read: the load's message, with its hints.
    #[error("{label}: keys of stream {stream}: {message}")]
    Keys {
        label: String,
        stream: usize,
        message: super::Message,
    },
}

impl ScenarioFileError {
    /// The error as a message with its hints (a key file's load error has them).
    pub fn message(&self) -> super::Message {
        match self {
            Self::Keys {
                label,
                stream,
                message,
            } => message
                .clone()
                .after(&format!("{label}: keys of stream {stream}: ")),
            Self::Trace {
                label,
                stream,
                message,
            } => message
                .clone()
                .after(&format!("{label}: trace of stream {stream}: ")),
            other => super::Message::new(other.to_string()),
        }
    }
}

/// Midnight UTC today, in Unix seconds: a scenario's default start.
pub fn today() -> i64 {
    let now = web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    now - now.rem_euclid(86_400)
}

/// Reads and parses the scenario at `path`, with its key files.
pub fn load_scenario_file(path: &Path) -> Result<Scenario, ScenarioFileError> {
    let text = std::fs::read_to_string(path).map_err(|error| ScenarioFileError::Read {
        path: path.display().to_string(),
        error,
    })?;
    parse_scenario(&text, path.parent(), &path.display().to_string())
}

/// Parses a scenario's text and loads its key files: from `base` (the scenario's folder), or for a built-in
/// example (`base` is `None`) the built-in key files. `label` names the scenario in errors.
pub fn parse_scenario(
    text: &str,
    base: Option<&Path>,
    label: &str,
) -> Result<Scenario, ScenarioFileError> {
    let mut scenario = parse(text, today()).map_err(|error| ScenarioFileError::Parse {
        label: label.to_owned(),
        error,
    })?;
    for (i, source) in scenario.keys.clone().iter().enumerate() {
        let KeySource::File(name) = source else {
            continue;
        };
        let keys_error = |message: super::Message| ScenarioFileError::Keys {
            label: label.to_owned(),
            stream: i + 1,
            message,
        };
        let weighted: Vec<(String, f64)> = match (base, example_key_file(name)) {
            (None, Some(text)) => text.lines().map(|l| (l.to_owned(), 1.0)).collect(),
            (Some(dir), _) => {
                let path = dir.join(name);
                let loaded = super::load(
                    std::slice::from_ref(&path),
                    &super::LoadOptions::default(),
                    &AtomicBool::new(false),
                    &mut |_| {},
                )
                .map_err(|e| keys_error(e.message()))?;
                let keys = &loaded.keys;
                keys.iter()
                    .map(|(k, _, count)| (keys.display(k).into_owned(), count as f64))
                    .collect()
            }
            (None, None) => return Err(keys_error(format!("no key file {name:?}").into())),
        };
        if weighted.is_empty() {
            return Err(keys_error(
                format!("the key file {name} has no keys").into(),
            ));
        }
        scenario.setup.traffic[i].keys = Keys::Weighted(weighted);
    }
    replay_traces(&mut scenario, text, base, label)?;
    Ok(scenario)
}

/// Streams with `trace = "PATH"`: their traces, read together, replace them as the run's trace; the run starts
/// at the trace's first second and lasts as long as the trace unless the file gives `duration`.
fn replay_traces(
    scenario: &mut Scenario,
    text: &str,
    base: Option<&Path>,
    label: &str,
) -> Result<(), ScenarioFileError> {
    let streams: Vec<(usize, String)> = scenario
        .keys
        .iter()
        .enumerate()
        .filter_map(|(i, k)| match k {
            KeySource::Trace(p) => Some((i, p.clone())),
            _ => None,
        })
        .collect();
    let Some(&(first, _)) = streams.first() else {
        return Ok(());
    };
    let error = |message: super::Message| ScenarioFileError::Trace {
        label: label.to_owned(),
        stream: first + 1,
        message,
    };
    let Some(dir) = base else {
        return Err(error("a built-in scenario has no trace files".into()));
    };
    let paths: Vec<std::path::PathBuf> = streams.iter().map(|(_, p)| dir.join(p)).collect();
    let load = super::trace::load_traces(&paths, &super::trace::TraceOptions::default())
        .map_err(|e| error(e.message()))?;
    for &(i, _) in streams.iter().rev() {
        scenario.setup.traffic.remove(i);
        scenario.keys.remove(i);
    }
    let trace = load.trace;
    let setup = &mut scenario.setup;
    setup.start = trace.start;
    let duration_given =
        toml::from_str::<toml::Table>(text).is_ok_and(|t| t.contains_key("duration"));
    if !duration_given {
        setup.duration = trace.duration;
        setup.step = setup.step.max(trace.step());
    }
    setup.trace = Some(std::sync::Arc::new(trace));
    Ok(())
}
