"""`simnode replay FILE --target URL`: every example scenario against a second simnode over HTTP on
the wall clock. The scenarios without time travel or dev steps pass their expectations; the others
are refused before anything is sent, with their steps listed, and run as far as they can with
--skip-unsupported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from simnode.config import NodeConfig
from simnode.node import Node
from simnode.scenario import StepFailed, load_scenario
from simnode.scenario.target import TargetRefused, run_on_target, unsupported_steps

from .rpc import call

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
REDUCED = {"load": {"transfers": 40}, "token_economy": {"erc20_transfers": 20, "erc1155_transfers": 10}}
# where the scenarios that need time travel stop once it is left out: the first step whose
# expectation depends on it
STOPS_AT = {"staking_month": "9", "icm_pingpong": "11"}


def _target() -> object:
    return Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, log_level="WARN", clock_mode="wall"))


def _heights(url: str) -> tuple[int, int, int]:
    return (int(call(f"{url}/ext/bc/P", "platform.getHeight", {})["height"]),
            int(call(f"{url}/ext/bc/X", "avm.getHeight", {})["height"]),
            int(call(f"{url}/ext/bc/C/rpc", "eth_blockNumber", []), 16))


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_example_scenario_on_a_live_simnode(path: Path):
    scenario = load_scenario(path, vars=REDUCED.get(path.stem))
    bad = unsupported_steps(scenario)
    with _target() as target:
        if not bad:
            result = run_on_target(scenario, target.url)
            assert result.stats.txs > 0 and not result.stats.skipped
            assert result.stats.steps == scenario.count_steps()
            return
        with pytest.raises(TargetRefused) as refused:
            run_on_target(scenario, target.url)
        text = str(refused.value)
        assert "nothing was sent" in text
        for u in bad:
            assert f"step {u.step} ({u.kind}): {u.why}" in text
        assert _heights(target.url) == (0, 0, 0)  # not one request reached it
        first_skipped = min(float(u.step) for u in bad)
        if path.stem in STOPS_AT:
            with pytest.raises(StepFailed) as failed:
                run_on_target(scenario, target.url, skip_unsupported=True)
            assert f"step {STOPS_AT[path.stem]} " in str(failed.value)
            assert float(STOPS_AT[path.stem]) > first_skipped  # it ran everything up to the time travel
        else:
            result = run_on_target(scenario, target.url, skip_unsupported=True)
            assert sorted(result.stats.skipped) == sorted(u.step for u in bad)
            assert result.stats.steps + len(bad) == scenario.count_steps()
        assert _heights(target.url) != (0, 0, 0)


def test_the_cli_refuses_then_skips(tmp_path):
    env = dict(os.environ, ETH_HASH_BACKEND="pysha3")
    with _target() as target:
        cmd = [sys.executable, "-m", "simnode", "replay", str(SCENARIOS / "quickstart.toml"), "--target", target.url,
               "--quiet"]
        refused = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert refused.returncode == 1
        assert "cannot do 2 step(s); nothing was sent" in refused.stderr
        assert "step 16 (advance_time): time travel" in refused.stderr
        assert "step 17 (mine): a dev method (mining on demand)" in refused.stderr
        assert _heights(target.url) == (0, 0, 0)
        ran = subprocess.run([*cmd[:-1], "--skip-unsupported"], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=120)
        assert ran.returncode == 0, ran.stderr
        assert "skipped step 16 (advance_time): time travel" in ran.stdout
        assert "2 step(s) skipped" in ran.stderr
        p, x, c = _heights(target.url)
        assert p >= 4 and x >= 6 and c >= 3
        with_check = subprocess.run([*cmd, "--check", str(SCENARIOS / "quickstart.golden.json")], cwd=ROOT, env=env,
                                    capture_output=True, text=True, timeout=60)
        assert with_check.returncode == 2 and "--check cannot be used with --target" in with_check.stderr


def test_an_unreachable_target_is_a_clear_error():
    with pytest.raises(Exception, match="not an AvalancheGo-compatible endpoint"):
        run_on_target(SCENARIOS / "load.toml", "http://127.0.0.1:9", vars={"transfers": 1})


def test_a_recorded_session_runs_on_a_live_target(tmp_path):
    """A recording's signed txs sent to another node as they come; each block step waits for its txs
    there. A recording with dev methods is refused, naming them."""
    from eth_account import Account
    from web3 import Web3

    from simnode.node import NodeThread
    from simnode.scenario.recorder import Recorder

    path = tmp_path / "rec.toml"
    ewoq = Account.from_key("0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
    node = Node(NodeConfig(http_port=0, ephemeral=True, log_level="WARN"))
    recorder = Recorder(node, path)
    handle = NodeThread(node)
    handle.start(prepare=recorder.start)
    with handle:
        w3 = Web3(Web3.HTTPProvider(handle.urls["C"]))
        sent = []
        for i in range(3):
            tx = ewoq.sign_transaction({"to": ewoq.address, "value": i, "gas": 21000, "maxFeePerGas": 10**11,
                                        "maxPriorityFeePerGas": 0, "nonce": i, "chainId": 43112, "type": 2})
            sent.append(w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(tx.raw_transaction)))
        handle.call(recorder.close)
    with _target() as target:
        result = run_on_target(path, target.url)
        w3 = Web3(Web3.HTTPProvider(f"{target.url}/ext/bc/C/rpc"))
        for r in sent:
            assert w3.eth.get_transaction_receipt(r.transactionHash).status == 1
        assert result.stats.txs == 3
    text = path.read_text() + "\n[[steps]]\nkind = 'request'\nendpoint = '/ext/bc/C/rpc'\nmethod = 'evm_mine'\n"
    (tmp_path / "dev.toml").write_text(text)
    with pytest.raises(TargetRefused, match=r"step 7 \(request\): a dev method \(evm_mine\)"):
        run_on_target(tmp_path / "dev.toml", "http://127.0.0.1:9")
