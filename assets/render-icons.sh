#!/usr/bin/env bash
# Renders assets/icon.svg to the PNG sizes the Linux package installs (hicolor theme) and the app may embed.
# Needs rsvg-convert (Debian: librsvg2-bin); optipng (optional) shrinks the files.
set -euo pipefail
cd "$(dirname "$0")"

command -v rsvg-convert >/dev/null || { echo "render-icons: needs rsvg-convert (apt-get install -y librsvg2-bin)" >&2; exit 1; }

for size in 16 32 48 64 128 256 512; do
    rsvg-convert --width "$size" --height "$size" icon.svg --output "icon-$size.png"
done
if command -v optipng >/dev/null; then
    optipng -quiet -o5 -strip all icon-*.png
fi
du -cb icon-*.png | tail -n 1
