//! The app's settings and session files: defined in [`crate::source::session`] (the headless build and the
//! fuzz targets read them too), used here under their app names.

pub use crate::source::session::{
    ChartMode, ConnectSettings, REMEMBER_KEYS_BYTES, SESSION_FORMAT, SESSION_VERSION, Session,
    SessionError, SessionKeys, Settings,
};
