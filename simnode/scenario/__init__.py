"""Scenario files: a TOML description of a network, its accounts and steps; a runner that drives
a node through its public APIs; golden traces for deterministic replay. See docs/scenarios.md."""

from .accounts import Account, derive_key
from .errors import ChainUnavailable, ScenarioError, ScenarioLoadError, StepFailed
from .model import Scenario, Step, load_scenario, load_scenario_text, scenario_from_dict
from .replay import ReplayResult, TraceMismatch, as_scenario, node_config, replay, run_on
from .runner import Runner
from .schema import STEP_SPECS
from .stats import RunStats

__all__ = [
    "STEP_SPECS", "Account", "ChainUnavailable", "ReplayResult", "RunStats", "Runner", "Scenario",
    "ScenarioError", "ScenarioLoadError", "Step", "StepFailed", "TraceMismatch", "as_scenario", "derive_key",
    "load_scenario", "load_scenario_text", "node_config", "replay", "run_on", "scenario_from_dict",
]
