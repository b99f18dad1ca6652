#!/usr/bin/env bash
# Checks the Linux packaging files: the desktop entry (desktop-file-validate), the AppStream metainfo
# (appstreamcli validate --no-net), and that both agree with the icons and with the cargo-deb assets in
# Cargo.toml; then stages the files as the .deb installs them and runs appstreamcli validate-tree on that.
#
#   tests/packaging.sh
#
# Exits 0 when everything passes (hints and pedantic notes are printed, not failed on), 1 otherwise.
# Installs desktop-file-utils and appstream when missing (Debian/Ubuntu, as root or through sudo).
set -euo pipefail
cd "$(dirname "$0")/.."

app_id=io.github.shardlens.Shardlens
desktop=packaging/linux/$app_id.desktop
metainfo=packaging/linux/$app_id.metainfo.xml

failures=0
say() { echo "packaging: $*" >&2; }
bad() {
    say "FAIL: $*"
    failures=$((failures + 1))
}

# ---- tools ---------------------------------------------------------------------------------------------------
need=()
command -v desktop-file-validate >/dev/null || need+=(desktop-file-utils)
command -v appstreamcli >/dev/null || need+=(appstream)
if [ ${#need[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || { say "missing ${need[*]} and no apt-get to install them"; exit 1; }
    # shellcheck source=tests/apt.sh
    source tests/apt.sh
    apt_install packaging "${need[@]}" || exit 1
fi

# ---- desktop entry -------------------------------------------------------------------------------------------
say "desktop-file-validate $desktop"
if out=$(desktop-file-validate "$desktop" 2>&1); then rc=0; else rc=$?; fi
[ -n "$out" ] && echo "$out" >&2
if [ "$rc" -ne 0 ] || grep -qE ': (error|warning): ' <<<"$out"; then
    bad "desktop-file-validate reported errors or warnings"
fi

# ---- AppStream metainfo --------------------------------------------------------------------------------------
# Fails on errors and warnings; infos (e.g. tags newer than this appstream) and pedantic notes only print.
say "appstreamcli validate --no-net --pedantic $metainfo"
if out=$(appstreamcli validate --no-net --pedantic "$metainfo" 2>&1); then rc=0; else rc=$?; fi
echo "$out" >&2
if [ "$rc" -ne 0 ] || grep -qE '^[[:space:]]*[EW]: ' <<<"$out"; then
    bad "appstreamcli validate reported errors or warnings"
fi

# ---- the files agree on the app id ---------------------------------------------------------------------------
key() { sed -n "s/^$1=//p" "$desktop" | head -n 1; }
[ "$(key Icon)" = "$app_id" ] || bad "$desktop: Icon=$(key Icon), want $app_id"
[ "$(key StartupWMClass)" = "$app_id" ] || bad "$desktop: StartupWMClass=$(key StartupWMClass), want $app_id"
exec_bin=$(key Exec | cut -d' ' -f1)
[ "$exec_bin" = shardlens ] || bad "$desktop: Exec runs '$exec_bin', want shardlens"
grep -q "<id>$app_id</id>" "$metainfo" || bad "$metainfo: <id> is not $app_id"
grep -q "<launchable type=\"desktop-id\">$app_id.desktop</launchable>" "$metainfo" \
    || bad "$metainfo: <launchable> does not name $app_id.desktop"
grep -q '<binary>shardlens</binary>' "$metainfo" || bad "$metainfo: does not provide the binary shardlens"

# ---- icons ---------------------------------------------------------------------------------------------------
png_size() { # prints WIDTHxHEIGHT from the PNG header (IHDR), or nothing when the file is not a PNG
    local bytes
    bytes=$(od -An -tx1 -N24 "$1" | tr -d ' \n')
    [ "${bytes:0:16}" = 89504e470d0a1a0a ] || return 0
    echo "$((16#${bytes:32:8}))x$((16#${bytes:40:8}))"
}
[ -s assets/icon.svg ] || bad "assets/icon.svg is missing"
grep -q '<svg' assets/icon.svg 2>/dev/null || bad "assets/icon.svg is not an SVG"
total=0
for size in 16 32 48 64 128 256 512; do
    png=assets/icon-$size.png
    if [ ! -f "$png" ]; then
        bad "$png is missing"
        continue
    fi
    got=$(png_size "$png")
    [ "$got" = "${size}x${size}" ] || bad "$png is '${got:-not a PNG}', want ${size}x${size}"
    total=$((total + $(wc -c <"$png")))
done
[ "$total" -lt 200000 ] || bad "icon PNGs total $total bytes; keep them under 200 KB (re-run assets/render-icons.sh)"

# ---- cargo-deb assets ----------------------------------------------------------------------------------------
# Each [source, destination, mode] row of [package.metadata.deb] assets: the source exists (the binary is built
# by cargo deb), hicolor PNGs sit in the directory of their real size, and the files above are all installed.
deb=$(sed -n '/^\[package\.metadata\.deb\]/,/^\[/p' Cargo.toml)
[ -n "$deb" ] || bad "Cargo.toml has no [package.metadata.deb]"
rows=$(grep -oE '^[[:space:]]*\["[^"]+", *"[^"]+"' <<<"$deb" | sed -E 's/^[[:space:]]*\["([^"]+)", *"([^"]+)"/\1 \2/' || true)
stage=$(mktemp -d "${TMPDIR:-/tmp}/shardlens-packaging.XXXXXX")
trap 'rm -rf "$stage"' EXIT
installed=
while read -r src dest; do
    [ -n "$src" ] || continue
    case "$dest" in */) dest=$dest$(basename "$src") ;; esac
    installed="$installed $dest"
    if [ "$src" = target/release/shardlens ]; then
        mkdir -p "$stage/$(dirname "$dest")" && printf '#!/bin/sh\n' >"$stage/$dest" && chmod 755 "$stage/$dest"
        continue
    fi
    [ -f "$src" ] || { bad "Cargo.toml deb asset source missing: $src"; continue; }
    if [[ $dest =~ hicolor/([0-9]+)x([0-9]+)/apps/ ]]; then
        want="${BASH_REMATCH[1]}x${BASH_REMATCH[2]}"
        got=$(png_size "$src")
        [ "$got" = "$want" ] || bad "$src is ${got:-not a PNG} but installs to $dest"
    fi
    mkdir -p "$stage/$(dirname "$dest")"
    cp "$src" "$stage/$dest"
done <<<"$rows"
for dest in usr/bin/shardlens "usr/share/applications/$app_id.desktop" "usr/share/metainfo/$app_id.metainfo.xml" \
    "usr/share/icons/hicolor/scalable/apps/$app_id.svg" "usr/share/icons/hicolor/256x256/apps/$app_id.png"; do
    [[ " $installed " == *" $dest "* ]] || bad "Cargo.toml deb assets do not install $dest"
done

# The README's relative links (docs, pictures, licences) resolve where the .deb installs it.
doc="$stage/usr/share/doc/shardlens"
for link in $(grep -oE '\]\([^)#]+' README.md | sed 's/^](//' | grep -v '^[a-z]*://' | sort -u); do
    [ -f "$doc/$link" ] || bad "README.md links to $link, which the .deb does not install under /usr/share/doc/shardlens"
done

# ---- the installed tree as a whole ---------------------------------------------------------------------------
say "appstreamcli validate-tree --no-net (files staged as the .deb installs them)"
if out=$(appstreamcli validate-tree --no-net "$stage" 2>&1); then rc=0; else rc=$?; fi
echo "$out" >&2
if [ "$rc" -ne 0 ] || grep -qE '^[[:space:]]*[EW]: ' <<<"$out"; then
    bad "appstreamcli validate-tree reported errors or warnings"
fi

if [ "$failures" -gt 0 ]; then
    say "$failures check(s) failed"
    exit 1
fi
say "OK: desktop entry, metainfo, icons and cargo-deb assets"
