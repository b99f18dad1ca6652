# Sourced by the test scripts: `apt_install TAG PACKAGE...` installs the Debian packages not yet installed
# (with sudo when not root; `apt-get update` and a second try if the first fails). Returns 0 with nothing done
# where there is no dpkg/apt-get (the caller then finds its tools on PATH or says what is missing), 1 when an
# install was needed and failed. TAG prefixes its messages.
apt_install() {
    local tag=$1
    shift
    command -v dpkg-query >/dev/null && command -v apt-get >/dev/null || {
        echo "$tag: no dpkg/apt-get here: not installing $*" >&2
        return 0
    }
    local missing=() p sudo=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || {
            echo "$tag: missing packages and not root (no sudo): ${missing[*]}" >&2
            return 1
        }
        sudo=(sudo)
    fi
    echo "$tag: installing: ${missing[*]}" >&2
    if ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; then
        echo "$tag: install failed; running apt-get update and trying again" >&2
        "${sudo[@]}" apt-get update >/dev/null
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null || {
            echo "$tag: could not install: ${missing[*]}" >&2
            return 1
        }
    fi
}
