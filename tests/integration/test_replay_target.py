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
