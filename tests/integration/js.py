"""Running the avalanchejs 5.2.0 scripts in tests/js from pytest."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

JS_DIR = Path(__file__).resolve().parents[1] / "js"


def require_js(who: str = "the avalanchejs tests") -> None:
    """Skip (saying why) when Node.js or tests/js/node_modules is missing; never pass silently."""
    if shutil.which("node") is None:
        pytest.skip(f"Node.js (node) is not installed; {who} need it")
    if not (JS_DIR / "node_modules" / "@avalabs" / "avalanchejs").is_dir():
        pytest.skip("tests/js/node_modules is missing: run `cd tests/js && npm ci` (./simnode.sh test does it)")


def run_js(script: str, *args: str, timeout: int = 60) -> dict:
    """Run a script; its last JSON line on stdout is the result."""
    proc = subprocess.run(["node", script, *args], cwd=JS_DIR, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{script} failed:\n{proc.stderr}\n{proc.stdout}"
    lines = [ln for ln in proc.stdout.strip().splitlines() if ln.startswith("{")]
    assert lines, f"{script} printed no JSON line:\n{proc.stdout}\n{proc.stderr}"
    return json.loads(lines[-1])
