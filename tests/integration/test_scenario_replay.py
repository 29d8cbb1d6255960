"""Every example scenario replays, twice, to the same trace; committed golden traces still match."""

from __future__ import annotations

from pathlib import Path

import pytest

from simnode.scenario import replay
from simnode.scenario.golden_trace import compare, read

SCENARIOS = Path(__file__).parents[2] / "scenarios"
# Smaller sizes for the default suite; `-m slow` runs them whole.
REDUCED = {
    "load": {"transfers": 150},
    "token_economy": {"erc20_transfers": 40, "erc1155_transfers": 15},
}


def _files() -> list[Path]:
    return sorted(SCENARIOS.glob("*.toml"))


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.stem)
def test_replays_are_identical(path: Path):
    vars = REDUCED.get(path.stem)
    first = replay(path, vars=vars, with_trace=True, progress=False)
    second = replay(path, vars=vars, with_trace=True, progress=False)
    assert first.trace is not None and second.trace is not None
    assert compare(second.trace, first.trace) is None
    assert first.trace == second.trace
    assert first.stats.txs > 0
    # tx IDs and block IDs are there, per chain that moved
    assert [t.id for t in first.txs] == [t.id for t in second.txs]
    assert first.trace["chains"]["C"]["blocks"][0][1].startswith("0x")


@pytest.mark.parametrize("golden", sorted(SCENARIOS.glob("*.golden.json")), ids=lambda p: p.stem)
def test_committed_golden_traces_match(golden: Path):
    scenario = golden.with_name(golden.name.replace(".golden.json", ".toml"))
    result = replay(scenario, check=golden, progress=False)
    assert result.trace is not None and compare(result.trace, read(golden)) is None


def test_a_changed_scenario_reports_its_first_divergence(tmp_path):
    text = (SCENARIOS / "quickstart.toml").read_text().replace('amount = "2 AVAX"', 'amount = "2.5 AVAX"', 1)
    text = text.replace('equals = "2000000000"', 'equals = "2500000000"')
    changed = tmp_path / "quickstart.toml"
    changed.write_text(text)
    from simnode.scenario import TraceMismatch
    with pytest.raises(TraceMismatch, match=r"diverges from .*: tx #5, sent by step 3 'X-Chain transfer' on the X-Chain: \w+, golden \w+$"):
        replay(changed, check=SCENARIOS / "quickstart.golden.json", progress=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["load", "token_economy"])
def test_full_size(name: str):
    result = replay(SCENARIOS / f"{name}.toml", progress=False)
    assert result.stats.txs >= 1000
