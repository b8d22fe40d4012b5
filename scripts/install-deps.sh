#!/usr/bin/env bash
# Installs the Debian packages Parley needs to build and test, if any are missing.
# Used by the Makefile, CI and the Dockerfile alike. Pass --test to include test-only packages and the browser
# suite's Python packages from PyPI, kept in the project's own virtual environment (.venv-test, see below).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# libjs-katex typesets formulas in the browser: Public/katex links to its files (without it, formulas show as TeX).
# poppler-utils (pdftotext) and unzip read documents' text, each in a child process with time and memory limits.
packages=(libsqlite3-dev libssl-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libvips42 zlib1g-dev pkg-config
          libjs-katex poppler-utils unzip)
# qpdf encrypts a PDF for the password-protected case of the document tests; postgresql gives the store tests a
# throwaway server (initdb and pg_ctl, started by the tests themselves; the package's own cluster is not used).
if [[ "${1:-}" == "--test" ]]; then
  packages+=(sqlite3 curl openssl libvips-tools chromium chromium-driver python3-pytest python3-selenium python3-venv
             nginx qpdf postgresql)
fi

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if [[ ${#missing[@]} -gt 0 ]]; then
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
fi

# The test suites' PyPI packages go into .venv-test, which sees Debian's selenium and pytest (system site
# packages). axe-selenium-python (which ships axe-core) is installed without its dependencies: Debian's selenium and
# pytest already satisfy them, and pip must not replace them. oidc-provider-mock is a real OpenID Connect provider
# (Authlib and Flask) that the single sign-on tests start on loopback; it brings its own dependencies, Authlib kept
# below 2 (its 0.3.4 imports `authlib.jose`, which Authlib 2 drops). The official `openai` package is the client the
# OpenAI-compatible endpoint's tests drive, and openapi-core checks the API's recorded responses against its document.
# The official `mcp` package runs the MCP servers (Tests/MCP) that the tool tests connect to.
if [[ "${1:-}" == "--test" ]]; then
  venv=$root/.venv-test
  pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore)
  if ! "$venv/bin/python" -c "import axe_selenium_python, selenium, pytest" 2>/dev/null; then
    echo "Creating $venv with axe-selenium-python" >&2
    /usr/bin/python3 -m venv --system-site-packages "$venv"
    "${pip[@]}" --no-deps "axe-selenium-python==2.1.6"
    "$venv/bin/python" -c "import axe_selenium_python, selenium, pytest"
  fi
  if ! "$venv/bin/python" -c "import oidc_provider_mock" 2>/dev/null; then
    echo "Adding oidc-provider-mock to $venv" >&2
    "${pip[@]}" "oidc-provider-mock==0.3.4" "authlib>=1.6,<2"
    "$venv/bin/python" -c "import oidc_provider_mock, selenium, pytest"
  fi
  if ! "$venv/bin/python" -c "import openai, openapi_core" 2>/dev/null; then
    echo "Adding openai and openapi-core to $venv" >&2
    "${pip[@]}" "openai==3.51.0" "openapi-core==0.23.1"
    "$venv/bin/python" -c "import openai, openapi_core, oidc_provider_mock, selenium, pytest"
  fi
  if ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
    echo "Adding mcp to $venv" >&2
    "${pip[@]}" "mcp==2.3.0"
    "$venv/bin/python" -c "import mcp, openai, openapi_core, oidc_provider_mock, selenium, pytest"
  fi
fi
