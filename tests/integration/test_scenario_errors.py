"""Scenario failures name the step and exit non-zero; the data dir stays consistent."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simnode.cli import main
from simnode.config import NodeConfig
from simnode.node import Node
from simnode.scenario import StepFailed, replay
from simnode.scenario.transport import InProcessTransport

from .rpc import call

BASE = """
[network]
seed = 9
[accounts.alice]
fund = { C = "10 AVAX" }
[accounts.bob]
"""


def write(tmp_path: Path, steps: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(BASE + steps)
    return path


def test_a_failing_expect_names_the_step_and_the_difference(tmp_path, capsys):
    path = write(tmp_path, """
[[steps]]
kind = "transfer"
chain = "C"
from = "alice"
to = "bob"
amount = "1 AVAX"
[[steps]]
kind = "expect_balance"
label = "bob was paid"
chain = "C"
account = "bob"
equals = "2 AVAX"
""")
    assert main(["replay", str(path), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "step 2 'bob was paid' (expect_balance) failed" in err
    assert "expected balance == 2000000000000000000 wei (2 AVAX), got 1000000000000000000" in err
    assert "off by -1000000000000000000" in err


def test_an_invalid_tx_names_the_step_and_the_node_error(tmp_path):
    path = write(tmp_path, """
[[steps]]
kind = "repeat"
count = 3
steps = [ { kind = "mine" }, { kind = "transfer", chain = "C", from = "bob", to = "alice", amount = "1 AVAX" } ]
""")
    with pytest.raises(StepFailed) as info:
        replay(path, progress=False)
    e = info.value
    assert e.label == "1.2 (i=0)" and e.kind == "transfer"
    assert "insufficient funds for gas * price + value" in e.message


def test_expect_error_turns_a_refusal_into_a_pass(tmp_path):
    path = write(tmp_path, """
[[steps]]
kind = "transfer"
chain = "C"
from = "bob"
to = "alice"
amount = "1 AVAX"
expect_error = "insufficient funds"
[[steps]]
kind = "transfer"
chain = "C"
from = "alice"
to = "bob"
amount = "1 AVAX"
expect_error = "insufficient funds"
""")
    with pytest.raises(StepFailed, match=r"step 2 \(transfer\) failed: expected an error containing 'insufficient funds', but the step succeeded"):
        replay(path, progress=False)


def test_an_unknown_step_kind_fails_at_load_before_the_node_starts(tmp_path, capsys):
    path = write(tmp_path, """
[[steps]]
kind = "mine"
[[steps]]
kind = "teleport"
to = "mars"
""")
    assert main(["replay", str(path), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"{path}: step 2: key 'kind': unknown step kind 'teleport'" in err


def test_a_template_resolving_to_a_bad_value_names_the_key(tmp_path):
    path = write(tmp_path, """
[vars]
n = 0
[[steps]]
kind = "mine"
blocks = "{n}"
""")
    with pytest.raises(StepFailed, match=r"step 1 \(mine\) failed: key 'blocks': must be at least 1, got 0"):
        replay(path, progress=False)


def test_snapshot_revert_and_saved_values(tmp_path):
    path = write(tmp_path, """
[[steps]]
kind = "snapshot"
name = "before"
[[steps]]
kind = "transfer"
chain = "C"
from = "alice"
to = "bob"
amount = "1 AVAX"
save = "tx"
[[steps]]
kind = "expect"
endpoint = "C"
method = "eth_getTransactionReceipt"
params = ["${tx}"]
path = "result.status"
equals = "0x1"
[[steps]]
kind = "revert"
name = "before"
[[steps]]
kind = "expect_balance"
chain = "C"
account = "bob"
equals = 0
[[steps]]
kind = "revert"
name = "before"
""")
    with pytest.raises(StepFailed, match=r"step 6 \(revert\) failed: no snapshot named 'before'"):
        replay(path, progress=False)


def test_the_data_dir_stays_consistent_after_a_failure(tmp_path):
    data = tmp_path / "data"
    path = write(tmp_path, """
[[steps]]
kind = "repeat"
count = 5
steps = [ { kind = "transfer", chain = "C", from = "alice", to = "bob", amount = "1 AVAX" } ]
[[steps]]
kind = "transfer"
chain = "C"
from = "alice"
to = "bob"
amount = "100 AVAX"
""")
    assert main(["replay", str(path), "--quiet", "--data-dir", str(data)]) == 1
    # reopen: every accepted block is there (1 funding + 5 transfers), the failed one is not
    config = NodeConfig(http_port=0, data_dir=data, clock_mode="virtual", log_level="WARN")
    with Node.start_in_thread(config) as handle:
        t = InProcessTransport(handle.node, handle.loop)
        assert int(t.call("C", "eth_blockNumber", []), 16) == 6
        bob = handle.call(lambda: None)  # the loop answers
        assert bob is None
        from simnode.scenario.accounts import derive_key
        from simnode.crypto.secp256k1 import eth_address
        addr = "0x" + eth_address(derive_key(9, "bob")).hex()
        assert int(t.call("C", "eth_getBalance", [addr, "latest"]), 16) == 5 * 10**18


def test_run_with_a_scenario_serves_a_preloaded_devnet(tmp_path):
    path = write(tmp_path, """
[[steps]]
kind = "transfer"
chain = "C"
from = "alice"
to = "bob"
amount = "1 AVAX"
""")
    env = {**os.environ, "ETH_HASH_BACKEND": "pysha3"}
    proc = subprocess.Popen([sys.executable, "-m", "simnode", "run", "--scenario", str(path), "--http-port", "0",
                             "--ephemeral", "--log-level", "WARN"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if line.startswith("simnode ready") or not line:
                break
        assert line.startswith("simnode ready"), proc.stderr.read() if proc.poll() is not None else line
        base = line.split(" at ")[1].split(" ")[0]
        assert int(call(base + "/ext/bc/C/rpc", "eth_blockNumber", []), 16) == 2
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode == 0
