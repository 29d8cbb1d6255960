#!/usr/bin/env bash
# simnode's one entry point on a fresh machine: creates .venv and installs what is needed
# (again whenever pyproject.toml changes), then runs the command.
#   ./simnode.sh run [flags]      start a node (default: local network on 127.0.0.1:9650)
#   ./simnode.sh test [pytest args]  run the test suite (installs Debian's chromium for the browser tests
#                                   when it is missing and this is root with apt-get); without args,
#                                   the EVM tests a second time on the pure-Python core
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$root/.venv"
stamp="$venv/.simnode-installed"
# again whenever the build changes: pyproject.toml, setup.py, or a module of the compiled core
# (simnode/compiled.py lists them; each has its .pxd beside its .py)
want="$(cd "$root" && cat pyproject.toml setup.py $(find simnode -name '*.pxd' | sort | sed 'p;s/\.pxd$/.py/') \
        | sha256sum | cut -c1-16)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "simnode: installing into $venv ..." >&2
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install -q --disable-pip-version-check -e "$root[test]" > "$venv/install.log" 2>&1; then
    cat "$venv/install.log" >&2
    echo "simnode: installing failed (log above, also in $venv/install.log)" >&2
    exit 1
  fi
  echo "$want" > "$stamp"
fi
# Byte-compile simnode's sources when they changed, as an installed package has them: with
# PYTHONDONTWRITEBYTECODE set, Python would otherwise compile them again on every start (~0.15 s).
# Then one import of what a node starts with keeps its dataclass methods compiled too
# (simnode/dataclass_code.py, ~60 ms of every start).
compiled="$venv/.simnode-compiled"
if [ ! -f "$compiled" ] || [ -n "$(find "$root/simnode" -name '*.py' -newer "$compiled" -print -quit)" ]; then
  "$venv/bin/python" -m compileall -q "$root/simnode" > /dev/null \
    && PYTHONDONTWRITEBYTECODE= "$venv/bin/python" -c 'import simnode.patches as s; s.install(); import simnode.node, simnode.vms.primary as p; p.load_evm_chain(); p.load_evm_engine()' \
    && touch "$compiled"
fi
export ETH_HASH_BACKEND=pysha3
cmd="${1:-run}"; shift || true
# `./simnode.sh lint [sync]` (and the first step of `test`): ruff, then mypy, where an error that
# mypy-baseline.txt does not list fails, and so does one it lists that is fixed (the baseline only
# shrinks; `./simnode.sh lint sync` rewrites it)
lint() {
  if ! (cd "$root" && "$venv/bin/ruff" check --quiet simnode scripts tests); then
    echo "simnode: ruff found the errors above" >&2; return 1
  fi
  local out rc=0
  out="$(cd "$root" && "$venv/bin/mypy" 2>&1)" || rc=$?
  if [ "$rc" -gt 1 ]; then printf '%s\n' "$out" >&2; echo "simnode: mypy did not run" >&2; return 1; fi
  if [ "${1:-}" = sync ]; then
    printf '%s\n' "$out" | (cd "$root" && "$venv/bin/mypy-baseline" sync) > /dev/null
  fi
  if ! printf '%s\n' "$out" | (cd "$root" && "$venv/bin/mypy-baseline" filter --no-colors) > "$venv/mypy.log"; then
    cat "$venv/mypy.log" >&2
    echo "simnode: mypy's errors differ from mypy-baseline.txt (above): fix the new ones;" \
      "after fixing listed ones, \`./simnode.sh lint sync\`" >&2
    return 1
  fi
  echo "simnode: ruff clean; mypy: $(grep -c ': error:' "$root/mypy-baseline.txt") errors, all in mypy-baseline.txt" >&2
}
case "$cmd" in
  lint) lint "$@"; exit ;;
  test)
    lint
    if [ -f "$root/tests/js/package.json" ] && command -v npm >/dev/null; then
      # again whenever the lock file changes, as .venv is re-installed when pyproject.toml does
      js_want="$(sha256sum "$root/tests/js/package-lock.json" | cut -c1-16)"
      js_stamp="$root/tests/js/node_modules/.simnode-installed"
      if [ "$(cat "$js_stamp" 2>/dev/null)" != "$js_want" ]; then
        (cd "$root/tests/js" && npm ci --silent --no-audit --no-fund && echo "$js_want" > "$js_stamp") >&2
      fi
    fi
    # the explorer's browser tests drive Debian's chromium (Playwright's own browser download is not used)
    if ! command -v chromium >/dev/null; then
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "simnode: installing chromium for the explorer's browser tests ..." >&2
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } > "$venv/chromium-install.log" 2>&1 \
          || echo "simnode: chromium could not be installed (log in $venv/chromium-install.log): the explorer's browser tests will skip" >&2
      else
        echo "simnode: no chromium, and no root apt-get to install it: the explorer's browser tests will skip" >&2
      fi
    fi
    cd "$root"
    if [ $# -gt 0 ]; then exec "$venv/bin/python" -m pytest "$@"; fi
    # the whole suite runs on the core the install built (compiled where a C compiler is); then
    # the EVM's tests again on the pure-Python core (SIMNODE_PURE=1, simnode/compiled.py)
    "$venv/bin/python" -m pytest
    echo "simnode: the EVM tests again on the pure-Python core (SIMNODE_PURE=1)" >&2
    SIMNODE_PURE=1 exec "$venv/bin/python" -m pytest tests/unit/test_evm_*.py tests/unit/test_warp_precompile.py \
      tests/unit/test_subnet_evm_fees.py tests/unit/test_simnode_core.py tests/integration/test_cchain_web3.py \
      tests/integration/test_cchain_call_args.py ;;
  *) exec "$venv/bin/simnode" "$cmd" "$@" ;;
esac
