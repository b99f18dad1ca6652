#!/usr/bin/env bash
# Real-desktop test of the app: the system clipboard and the file dialogs' fallback, on a private Xvfb with
# another X client (xclip) owning the clipboard, and with no file-chooser portal and no zenity reachable.
#
#   tests/desktop.sh BINARY [OUT_DIR]
#
#   BINARY   the debug or release shardlens binary
#   OUT_DIR  where screenshots go (default: a folder next to BINARY)
#
# It checks, each step against what the app shows in its window title, writes on stderr or puts on the
# clipboard:
#   (a) keys put on the CLIPBOARD by xclip and pasted with Ctrl+V reach the key set (title "pasted keys · N writes");
#   (b) Ctrl+K (shard hot keys), then Ctrl+Shift+C puts the Queries (one aws dynamodb query line per shard) on the
#       system clipboard (xclip -o);
#   (c) Ctrl+O with no portal and no zenity says so on stderr and shows the path field; a path typed into it
#       loads (title "keys.txt · N writes");
#   (d) File > Export chart as PNG… through the path field writes a PNG (ImageMagick identify);
#   (e) a zenity that cannot start (rfd's last resort failing) also ends in the path field, with rfd's error.
#
# Exits 0 when every check passed, 1 with a message and the app's log otherwise, 2 on bad usage. Installs
# Xvfb, xdotool, xclip, ImageMagick and the libraries the app opens at run time when missing (Debian/Ubuntu).
set -euo pipefail

[ $# -ge 1 ] && [ $# -le 2 ] || {
    echo "usage: $0 BINARY [OUT_DIR]" >&2
    exit 2
}
binary=$(realpath "$1")
out=${2:-$(dirname "$binary")/desktop}
fixtures=$(realpath "$(dirname "$0")/fixtures")
screen=${DESKTOP_SCREEN:-1280x800x24}

say() { echo "desktop: $*" >&2; }
fail() {
    say "FAIL: $*"
    if [ -n "${log:-}" ] && [ -f "$log" ]; then
        say "--- app output ---"
        cat "$log" >&2 || true
        say "--- end of app output ---"
    fi
    exit 1
}
[ -x "$binary" ] || fail "not an executable file: $binary"

# ---- packages (as tests/smoke.sh, plus xclip) ----------------------------------------------------------------
packages=(
    xvfb xdotool xclip imagemagick
    libgl1 libegl1 libgl1-mesa-dri libegl-mesa0
    libx11-6 libx11-xcb1 libxcb1 libxcursor1 libxi6 libxrender1 libxkbcommon0 libxkbcommon-x11-0 libdbus-1-3
)
# shellcheck source=tests/apt.sh
source "$(dirname "$0")/apt.sh"
apt_install desktop "${packages[@]}" || fail "could not install the packages this test needs"
for tool in Xvfb xdotool xclip import identify; do
    command -v "$tool" >/dev/null || fail "$tool not found (packages: xvfb, xdotool, xclip, imagemagick)"
done

# ---- a throwaway desktop: Xvfb, home, XDG dirs; no D-Bus session bus, nothing on the app's PATH ---------------
work=$(mktemp -d "${TMPDIR:-/tmp}/shardlens-desktop.XXXXXX")
mkdir -p "$work/home" "$work/config" "$work/data" "$work/cache" "$work/runtime" "$work/bin" "$out"
chmod 700 "$work/runtime"
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
    stop "$xvfb_pid" # xclip, serving the clipboard, exits with its X server
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

Xvfb -displayfd 3 -screen 0 "$screen" -nolisten tcp -noreset 3>"$work/display" 2>"$work/xvfb.log" &
xvfb_pid=$!
for _ in $(seq 100); do
    [ -s "$work/display" ] && break
    kill -0 "$xvfb_pid" 2>/dev/null || { cat "$work/xvfb.log" >&2; fail "Xvfb exited at start"; }
    sleep 0.1
done
[ -s "$work/display" ] || fail "Xvfb did not start within 10 s"
export DISPLAY=:$(tr -dc '0-9' <"$work/display")
say "Xvfb on $DISPLAY ($screen)"

# The app's PATH is an empty folder: no zenity. Its session bus address names a socket that does not exist
# (and with an address set, libdbus does not autolaunch one): no portal.
app_path=$work/bin
PATH=$app_path command -v zenity >/dev/null 2>&1 && fail "zenity is reachable on the app's PATH"
no_bus="unix:path=$work/no-such-bus"

# start_app NAME [ARGS...]: starts the app with its log in $work/NAME.log; sets app_pid, log, window.
start_app() {
    local name=$1
    shift
    log=$work/$name.log
    (
        cd "$work"
        unset WAYLAND_DISPLAY WAYLAND_SOCKET WINIT_UNIX_BACKEND SHARDLENS_FILE_DIALOG
        export PATH=$app_path HOME=$work/home DBUS_SESSION_BUS_ADDRESS=$no_bus
        export XDG_SESSION_TYPE=x11 LIBGL_ALWAYS_SOFTWARE=1 RUST_BACKTRACE=1
        export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
        export XDG_RUNTIME_DIR=$work/runtime
        exec "$binary" "$@"
    ) >"$log" 2>&1 </dev/null &
    app_pid=$!
    window=
    local deadline=$((SECONDS + 60))
    while [ $SECONDS -lt $deadline ]; do
        kill -0 "$app_pid" 2>/dev/null || fail "the app exited before its window appeared"
        window=$(xdotool search --onlyvisible --name '^shardlens' 2>/dev/null | head -n 1 || true)
        [ -n "$window" ] && break
        sleep 0.3
    done
    [ -n "$window" ] || fail "no shardlens window within 60 s"
    # No window manager: give the window the keyboard focus and the pointer ourselves.
    xdotool windowfocus --sync "$window" 2>/dev/null || xdotool windowfocus "$window"
    xdotool mousemove --window "$window" 600 400
    sleep 1
}
title() { xdotool getwindowname "$window" 2>/dev/null || true; }
# wait_title REGEX [SECONDS]: waits until the window title matches.
wait_title() {
    local deadline=$((SECONDS + ${2:-15}))
    while [ $SECONDS -lt $deadline ]; do
        kill -0 "$app_pid" 2>/dev/null || fail "the app exited"
        [[ $(title) =~ $1 ]] && return 0
        sleep 0.2
    done
    fail "window title is '$(title)', expected /$1/"
}
# wait_log TEXT [SECONDS]: waits until the app's stderr has a line containing TEXT.
wait_log() {
    local deadline=$((SECONDS + ${2:-15}))
    while [ $SECONDS -lt $deadline ]; do
        grep -qF -- "$1" "$log" && return 0
        sleep 0.2
    done
    fail "the app's log has no line with '$1'"
}
shot() { import -window "$window" "$out/$1" 2>/dev/null || import -window root "$out/$1"; }
# type_path PATH: replaces the path field's text (it has the keyboard focus) and presses Enter.
type_path() {
    xdotool key ctrl+a
    xdotool type --delay 20 "$1"
    sleep 0.3
    xdotool key Return
}

# ---- (a) paste from another program ---------------------------------------------------------------------------
printf 'x\ny\n' >"$work/start.txt"
start_app main "$work/start.txt"
say "window $window: '$(title)'"
# Keys loaded from a file are data, so a paste replaces them: the title then counts only the pasted keys.
wait_title '^shardlens — start\.txt · 2 writes$'
{
    for _ in $(seq 1100); do echo 'CELEB#42'; done
    for i in $(seq 104); do echo "USER#$i"; done
} >"$work/pasted.txt"
xclip -selection clipboard -i "$work/pasted.txt"
xdotool key ctrl+v
wait_title '^shardlens — pasted keys · 1,204 writes$'
say "ok (a): pasted 1,204 keys from another X client: '$(title)'"

# ---- (b) copy the key conditions to the system clipboard ---------------------------------------------------------
xdotool key ctrl+k
sleep 1
xdotool key ctrl+shift+c
# One aws dynamodb query command line per shard; pasted keys name no table and no attribute: TABLE and pk.
expected=$(for i in $(seq 0 9); do
    echo "aws dynamodb query --table-name TABLE --key-condition-expression '#pk = :pk'" \
        "--expression-attribute-names '{\"#pk\":\"pk\"}'" \
        "--expression-attribute-values '{\":pk\":{\"S\":\"CELEB#42#$i\"}}'"
done)
got=
for _ in $(seq 25); do
    got=$(xclip -o -selection clipboard 2>/dev/null || true)
    [ "$got" = "$expected" ] && break
    sleep 0.2
done
if [ "$got" != "$expected" ]; then
    say "clipboard holds:"
    printf '%s\n' "$got" | head -n 12 >&2
    fail "Ctrl+K, Ctrl+Shift+C did not put the 10 Queries of CELEB#42 on the clipboard"
fi
say "ok (b): the clipboard holds the key conditions ($(printf '%s\n' "$got" | wc -l) lines, first: $(printf '%s\n' "$got" | head -n 1))"

# ---- (c) Ctrl+O with no portal and no zenity: the message and the path field ------------------------------------
xdotool key ctrl+o
wait_log 'No file dialog could open for Open keys'
# Why (what is missing here), and what to install.
line=$(grep -F 'No file dialog could open for Open keys' "$log" | head -n 1)
for want in 'no xdg-desktop-portal file chooser (no D-Bus session bus' 'no zenity on PATH' \
    'install xdg-desktop-portal with a backend such as xdg-desktop-portal-gtk' 'or zenity'; do
    [[ $line == *"$want"* ]] || fail "the message does not say '$want': $line"
done
sleep 0.5
shot fallback-open.png
say "message: $(grep -F 'No file dialog could open' "$log" | head -n 1)"
keys_total=$("$binary" analyze "$fixtures/keys.txt" --format json | grep -o '"total": *[0-9]*' | head -n 1 | tr -dc '0-9')
type_path "$fixtures/keys.txt"
wait_title "^shardlens — keys\\.txt · $keys_total writes?\$"
say "ok (c): Ctrl+O showed the path field (screenshot $out/fallback-open.png); the typed path loaded: '$(title)'"

# ---- (d) Export chart as PNG through the path field ---------------------------------------------------------------
# The File menu is the menu bar's first button; "Export chart as PNG…" is its twelfth row. Clicking by position
# is checked by the message naming the action.
xdotool mousemove --window "$window" 18 11 click 1
sleep 0.7
shot file-menu.png
xdotool mousemove --window "$window" "${DESKTOP_PNG_ITEM_X:-60}" "${DESKTOP_PNG_ITEM_Y:-319}" click 1
if ! (wait_log 'No file dialog could open for Export chart as PNG' 10) 2>/dev/null; then
    fail "clicking File > Export chart as PNG… at (${DESKTOP_PNG_ITEM_X:-60}, ${DESKTOP_PNG_ITEM_Y:-319}) did not ask for a path \
(see $out/file-menu.png; if the File menu changed, set DESKTOP_PNG_ITEM_X/Y or fix the defaults here)"
fi
sleep 0.5
shot fallback-png.png
png=$work/chart.png
type_path "$png"
for _ in $(seq 50); do
    [ -s "$png" ] && break
    sleep 0.2
done
[ -s "$png" ] || fail "no PNG written to $png (see $out/fallback-png.png)"
read -r format width height < <(identify -format '%m %w %h\n' "$png" | head -n 1)
[ "$format" = PNG ] && [ "$width" -ge 100 ] && [ "$height" -ge 50 ] \
    || fail "not a chart PNG: $format ${width}x$height"
cp "$png" "$out/exported-chart.png"
say "ok (d): Export chart as PNG wrote a ${width}x$height $format through the path field"
kill -0 "$app_pid" 2>/dev/null || fail "the app exited"
stop "$app_pid"
app_pid=

# ---- (e) rfd's last resort fails: a zenity that cannot start ------------------------------------------------------
printf '#!/nonexistent/interpreter\n' >"$app_path/zenity"
chmod +x "$app_path/zenity"
start_app broken-zenity
xdotool key ctrl+o
wait_log 'No file dialog could open for Open keys'
grep -F 'No file dialog could open for Open keys' "$log" | grep -q 'the file dialog failed (.*zenity' \
    || fail "the message does not give rfd's zenity error"
sleep 0.5
shot fallback-failed.png
say "ok (e): a failing dialog also ends in the path field: $(grep -F 'No file dialog could open' "$log" | head -n 1)"

say "OK: clipboard in and out, and the path field for Open keys, PNG export and a failing dialog -> $out"
