#!/usr/bin/env bash
# Installs the Debian packages Parley needs to build and test, if any are missing.
# Used by the Makefile, CI and the Dockerfile alike. Pass --test to include test-only packages.
set -euo pipefail

packages=(libsqlite3-dev libssl-dev libcmark-gfm-dev libcmark-gfm-extensions-dev zlib1g-dev pkg-config)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(sqlite3 curl openssl chromium chromium-driver python3-pytest python3-selenium)
fi

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]]; then
  apt_get=(apt-get)
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  apt_get=(sudo apt-get)
else
  echo "Parley needs these Debian packages: ${missing[*]}" >&2
  echo "Install them with: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing ${missing[*]}" >&2
DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" update -qq
DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}"
