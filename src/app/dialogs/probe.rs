//! Whether a native file dialog can open here (the desktop portal's FileChooser over the session bus, or
//! zenity on `PATH`), and rfd's log caught on the dialog thread, which tells a dialog that failed from one the
//! user cancelled (see the parent module).

use std::cell::RefCell;
#[cfg(all(unix, not(target_os = "macos")))]
use std::path::PathBuf;

/// Why no native file dialog can open here ([`super::INSTALL_HINT`] says what to install).
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    /// Neither way rfd opens a dialog is there.
    #[cfg(all(unix, not(target_os = "macos")))]
    #[error("no xdg-desktop-portal file chooser ({portal}) and no zenity on PATH")]
    NoChooser { portal: PortalError },
    /// A dialog was tried and failed: rfd's errors.
    #[error("the file dialog failed ({})", .0.join("; "))]
    Failed(Vec<String>),
}

/// Why the desktop portal's file chooser is not there.
#[cfg(all(unix, not(target_os = "macos")))]
#[derive(Debug, thiserror::Error)]
pub enum PortalError {
    #[error("no D-Bus session bus: {0}")]
    NoBus(zbus::Error),
    #[error("D-Bus: {0}")]
    Bus(#[from] zbus::Error),
    #[error("D-Bus: {0}")]
    Call(#[from] zbus::fdo::Error),
    #[error("D-Bus: {0}")]
    Name(#[from] zbus::names::Error),
    #[error("{PORTAL} is neither running nor activatable on the session bus")]
    NotThere,
    #[error("the portal has no file chooser, so no backend provides one: {0}")]
    NoFileChooser(zbus::fdo::Error),
}

/// Whether a native file dialog can open here; if not, why.
pub fn availability() -> Result<(), Unavailable> {
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        let portal = match portal_file_chooser() {
            Ok(()) => return Ok(()),
            Err(e) => e,
        };
        if zenity_on_path().is_some() {
            return Ok(());
        }
        Err(Unavailable::NoChooser { portal })
    }
    #[cfg(not(all(unix, not(target_os = "macos"))))]
    Ok(())
}

#[cfg(all(unix, not(target_os = "macos")))]
const PORTAL: &str = "org.freedesktop.portal.Desktop";

/// Whether the session bus has the desktop portal (running or activatable) with a file chooser.
#[cfg(all(unix, not(target_os = "macos")))]
fn portal_file_chooser() -> Result<(), PortalError> {
    use zbus::names::{BusName, InterfaceName};
    pollster::block_on(async {
        let conn = zbus::connection::Builder::session()
            .map_err(PortalError::NoBus)?
            // Starting a portal takes a moment; one that hangs must not hold the dialog forever.
            .method_timeout(std::time::Duration::from_secs(10))
            .build()
            .await
            .map_err(PortalError::NoBus)?;
        let dbus = zbus::fdo::DBusProxy::new(&conn).await?;
        let name = BusName::try_from(PORTAL)?;
        if !dbus.name_has_owner(name).await? {
            let names = dbus.list_activatable_names().await?;
            if !names.iter().any(|n| n.as_str() == PORTAL) {
                return Err(PortalError::NotThere);
            }
        }
        let properties = zbus::fdo::PropertiesProxy::builder(&conn)
            .destination(PORTAL)
            .and_then(|b| b.path("/org/freedesktop/portal/desktop"))?
            .build()
            .await?;
        let interface =
            InterfaceName::from_static_str_unchecked("org.freedesktop.portal.FileChooser");
        properties
            .get(interface, "version")
            .await
            .map_err(PortalError::NoFileChooser)?;
        Ok(())
    })
}

/// The first executable `zenity` on `PATH`: rfd's fallback runs that one.
#[cfg(all(unix, not(target_os = "macos")))]
fn zenity_on_path() -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("zenity"))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

// ---- rfd's log -----------------------------------------------------------------------------------------------

/// rfd reports why a dialog failed only through the `log` crate; this logger prints its warnings and errors on
/// stderr and keeps the errors of the dialog thread that is listening.
struct RfdLog;

static RFD_LOG: RfdLog = RfdLog;

thread_local! {
    static CAUGHT: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

impl log::Log for RfdLog {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.target().starts_with("rfd") && metadata.level() <= log::Level::Warn
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let text = record.args().to_string();
        eprintln!("shardlens: file dialog: {text}");
        if record.level() == log::Level::Error {
            CAUGHT.with(|c| {
                if let Some(errors) = c.borrow_mut().as_mut() {
                    errors.push(text);
                }
            });
        }
    }

    fn flush(&self) {}
}

/// Installs the logger that catches rfd's errors (once; a logger set before stays, and then dialog failures
/// are told from cancels only by [`availability`]).
pub fn install_log_capture() {
    if log::set_logger(&RFD_LOG).is_ok() {
        log::set_max_level(log::LevelFilter::Warn);
    }
}

/// Runs `f`, returning what it returns and the rfd errors logged on this thread meanwhile.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn capture_log<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    CAUGHT.with(|c| *c.borrow_mut() = Some(Vec::new()));
    let out = f();
    let errors = CAUGHT.with(|c| c.borrow_mut().take()).unwrap_or_default();
    (out, errors)
}
