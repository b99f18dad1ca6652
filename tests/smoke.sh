#!/usr/bin/env bash
# Smoke test of the real desktop app: starts it under a private Xvfb (X11, software OpenGL), waits for its
# window, screenshots the window and checks the picture is not blank.
#
#   tests/smoke.sh BINARY OUT.png [NAME_PATTERN]
#
#   BINARY        the program to start, with no arguments (e.g. target/release/shardlens)
#   OUT.png       where the screenshot of the window goes
#   NAME_PATTERN  regex for the window name (xdotool search --name); default '^shardlens'
#
# Environment (all optional):
#   SMOKE_TIMEOUT     seconds to wait for the window (default 60)
#   SMOKE_SETTLE      seconds to let it draw before the screenshot (default 3)
#   SMOKE_MIN_COLORS  fewest distinct colours a drawn window has (default 16)
#   SMOKE_MIN_STDDEV  smallest normalised standard deviation of its pixels (default 0.01)
#   SMOKE_SCREEN      Xvfb screen geometry (default 1280x800x24)
#   SMOKE_STATE       a settings file (eframe's app.ron) the app finds at start; with SMOKE_EXPECT (a regex its
#                     output must match once the window is drawn) and SMOKE_KEPT (a file name that must then be
#                     beside it in the app's data folder): a bad settings file must not stop the app
#
# Exits 0 when the window appeared and was drawn; 1 with a message (and the app's log) otherwise; 2 on bad usage.
# Installs Xvfb, xdotool, ImageMagick and the libraries the app opens at run time when they are missing
# (Debian/Ubuntu, as root or through sudo), so it runs on a fresh CI machine.
set -euo pipefail

usage() {
    echo "usage: $0 BINARY OUT.png [NAME_PATTERN]" >&2
    exit 2
}
[ $# -ge 2 ] && [ $# -le 3 ] || usage
binary=$1
out=$2
pattern=${3:-^shardlens}
timeout=${SMOKE_TIMEOUT:-60}
settle=${SMOKE_SETTLE:-3}
min_colors=${SMOKE_MIN_COLORS:-16}
min_stddev=${SMOKE_MIN_STDDEV:-0.01}
screen=${SMOKE_SCREEN:-1280x800x24}

say() { echo "smoke: $*" >&2; }
fail() {
    say "FAIL: $*"
    exit 1
}

# A bare name is looked up on PATH; a path must point at an executable.
if [[ $binary == */* ]]; then
    [ -x "$binary" ] || fail "not an executable file: $binary"
else
    command -v "$binary" >/dev/null || fail "not found on PATH: $binary"
fi

# ---- packages -----------------------------------------------------------------------------------------------
# Tools this script uses, plus what an eframe (glow, X11) app dlopens: Mesa's software OpenGL (llvmpipe) for
# GLX/EGL, Xlib and its XCB bridge, Xcursor, XInput2, Xrender, xkbcommon-x11, and libdbus for file dialogs.
packages=(
    xvfb xdotool imagemagick
    libgl1 libegl1 libgl1-mesa-dri libegl-mesa0
    libx11-6 libx11-xcb1 libxcb1 libxcursor1 libxi6 libxrender1 libxkbcommon0 libxkbcommon-x11-0 libdbus-1-3
)
# shellcheck source=tests/apt.sh
source "$(dirname "$0")/apt.sh"
apt_install smoke "${packages[@]}" || fail "could not install the packages this test needs"
for tool in Xvfb xdotool import convert; do
    command -v "$tool" >/dev/null || fail "$tool not found (packages: xvfb, xdotool, imagemagick)"
done

# ---- start Xvfb and the app; always stop both ---------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/shardlens-smoke.XXXXXX")
xvfb_pid=
app_pid=

stop() { # stop PID: TERM, up to 5 s grace, then KILL
    local pid=$1 i
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    local rc=$?
    stop "$app_pid"
    stop "$xvfb_pid"
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# -displayfd: Xvfb picks a free display number itself and writes it once it accepts connections.
Xvfb -displayfd 3 -screen 0 "$screen" -nolisten tcp -noreset 3>"$work/display" 2>"$work/xvfb.log" &
xvfb_pid=$!
for _ in $(seq 100); do
    [ -s "$work/display" ] && break
    kill -0 "$xvfb_pid" 2>/dev/null || { cat "$work/xvfb.log" >&2; fail "Xvfb exited at start"; }
    sleep 0.1
done
[ -s "$work/display" ] || { cat "$work/xvfb.log" >&2; fail "Xvfb did not start within 10 s"; }
display=:$(tr -dc '0-9' <"$work/display")
export DISPLAY=$display
say "Xvfb on $DISPLAY ($screen)"

# X11 only, software OpenGL, and a throwaway home for saved settings.
mkdir -p "$work/config" "$work/data" "$work/cache" "$work/runtime"
chmod 700 "$work/runtime"
state_dir=$work/data/io.github.shardlens.shardlens
if [ -n "${SMOKE_STATE:-}" ]; then
    mkdir -p "$state_dir"
    cp "$SMOKE_STATE" "$state_dir/app.ron" || fail "cannot copy $SMOKE_STATE"
    say "settings file at start: $SMOKE_STATE"
fi
(
    unset WAYLAND_DISPLAY WAYLAND_SOCKET WINIT_UNIX_BACKEND
    export XDG_SESSION_TYPE=x11 LIBGL_ALWAYS_SOFTWARE=1 RUST_BACKTRACE=1
    export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
    export XDG_RUNTIME_DIR=$work/runtime
    exec "$binary"
) >"$work/app.log" 2>&1 </dev/null &
app_pid=$!
say "started $binary (pid $app_pid)"

app_died() {
    say "--- app output ($binary) ---"
    cat "$work/app.log" >&2 || true
    say "--- end of app output ---"
    local rc=0
    wait "$app_pid" 2>/dev/null || rc=$?
    app_pid=
    fail "$* (exit status $rc)"
}

# ---- wait for the window -------------------------------------------------------------------------------------
window=
deadline=$((SECONDS + timeout))
while [ $SECONDS -lt $deadline ]; do
    kill -0 "$app_pid" 2>/dev/null || app_died "the app exited before its window appeared"
    window=$(xdotool search --onlyvisible --name "$pattern" 2>/dev/null | head -n 1 || true)
    [ -n "$window" ] && break
    sleep 0.5
done
if [ -z "$window" ]; then
    say "windows on $DISPLAY:"
    xdotool search --name '' 2>/dev/null | while read -r w; do
        echo "  $w '$(xdotool getwindowname "$w" 2>/dev/null || true)'" >&2
    done
    say "--- app output so far ---"
    cat "$work/app.log" >&2 || true
    fail "no visible window named /$pattern/ within ${timeout} s"
fi
name=$(xdotool getwindowname "$window" 2>/dev/null || true)
say "window $window: '$name' after $((SECONDS + timeout - deadline)) s"

sleep "$settle"
kill -0 "$app_pid" 2>/dev/null || app_died "the app exited after opening its window"

# ---- screenshot and blank check ------------------------------------------------------------------------------
mkdir -p "$(dirname "$out")"
if ! import -window "$window" "$out" 2>"$work/import.log"; then
    say "window capture failed ($(head -c 300 "$work/import.log")); taking the whole screen"
    import -window root "$out" || fail "could not take a screenshot"
fi
read -r width height colors stddev < <(convert "$out" -format '%w %h %k %[fx:standard_deviation]\n' info: | head -n 1)
say "screenshot $out: ${width}x${height}, $colors colours, standard deviation $stddev"

# Let the app run to the end of the check: a crash while drawing is a failure too.
kill -0 "$app_pid" 2>/dev/null || app_died "the app exited while being captured"

if [ "$colors" -lt "$min_colors" ] \
    || awk -v s="$stddev" -v m="$min_stddev" 'BEGIN { exit !(s < m) }'; then
    say "--- app output ---"
    cat "$work/app.log" >&2 || true
    fail "the window looks blank: $colors colours (need $min_colors), standard deviation $stddev (need $min_stddev)"
fi
if [ -n "${SMOKE_EXPECT:-}" ]; then
    grep -Eq -- "$SMOKE_EXPECT" "$work/app.log" || {
        cat "$work/app.log" >&2
        fail "the app's output does not say /$SMOKE_EXPECT/"
    }
    say "the app said: $(grep -Eo -- "$SMOKE_EXPECT.*" "$work/app.log" | head -n 1)"
fi
if [ -n "${SMOKE_KEPT:-}" ]; then
    [ -f "$state_dir/$SMOKE_KEPT" ] || fail "no $SMOKE_KEPT in the app's data folder: $(ls "$state_dir" 2>&1)"
    cmp -s "${SMOKE_STATE:?SMOKE_KEPT needs SMOKE_STATE}" "$state_dir/$SMOKE_KEPT" \
        || fail "$SMOKE_KEPT is not the settings file the app found"
    say "kept as $SMOKE_KEPT, unchanged"
fi
say "OK: window '$name' drawn ($colors colours) -> $out"
