//! Whether a native file dialog can open here (the desktop portal's FileChooser over the session bus, or
//! zenity on `PATH`), and rfd's log caught on the dialog thread, which tells a dialog that failed from one the
//! user cancelled (see the parent module).

use std::cell::RefCell;
use std::path::PathBuf;

/// Whether a native file dialog can open here; if not, why ([`super::INSTALL_HINT`] says what to install).
pub fn availability() -> Result<(), String> {
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        let portal = match portal_file_chooser() {
            Ok(()) => return Ok(()),
            Err(e) => e,
        };
        if zenity_on_path().is_some() {
            return Ok(());
        }
        Err(format!(
            "no xdg-desktop-portal file chooser ({portal}) and no zenity on PATH"
        ))
    }
    #[cfg(not(all(unix, not(target_os = "macos"))))]
    Ok(())
}

#[cfg(all(unix, not(target_os = "macos")))]
const PORTAL: &str = "org.freedesktop.portal.Desktop";

/// Whether the session bus has the desktop portal (running or activatable) with a file chooser.
#[cfg(all(unix, not(target_os = "macos")))]
fn portal_file_chooser() -> Result<(), String> {
    use zbus::names::{BusName, InterfaceName};
    pollster::block_on(async {
        let conn = zbus::connection::Builder::session()
            .map_err(|e| format!("no D-Bus session bus: {e}"))?
            // Starting a portal takes a moment; one that hangs must not hold the dialog forever.
            .method_timeout(std::time::Duration::from_secs(10))
            .build()
            .await
            .map_err(|e| format!("no D-Bus session bus: {e}"))?;
        let bus_error = |e: zbus::Error| format!("D-Bus: {e}");
        let dbus = zbus::fdo::DBusProxy::new(&conn).await.map_err(bus_error)?;
        let name = BusName::try_from(PORTAL).map_err(|e| format!("D-Bus: {e}"))?;
        let running = dbus
            .name_has_owner(name)
            .await
            .map_err(|e| format!("D-Bus: {e}"))?;
        if !running {
            let names = dbus
                .list_activatable_names()
                .await
                .map_err(|e| format!("D-Bus: {e}"))?;
            if !names.iter().any(|n| n.as_str() == PORTAL) {
                return Err(format!(
                    "{PORTAL} is neither running nor activatable on the session bus"
                ));
            }
        }
        let properties = zbus::fdo::PropertiesProxy::builder(&conn)
            .destination(PORTAL)
            .and_then(|b| b.path("/org/freedesktop/portal/desktop"))
            .map_err(bus_error)?
            .build()
            .await
            .map_err(bus_error)?;
        let interface =
            InterfaceName::from_static_str_unchecked("org.freedesktop.portal.FileChooser");
        properties.get(interface, "version").await.map_err(|e| {
            format!("the portal has no file chooser, so no backend provides one: {e}")
        })?;
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
pub(super) fn capture_log<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    CAUGHT.with(|c| *c.borrow_mut() = Some(Vec::new()));
    let out = f();
    let errors = CAUGHT.with(|c| c.borrow_mut().take()).unwrap_or_default();
    (out, errors)
}
