"""Scenario errors. Each one names where it happened: the file, the step and the key."""

from __future__ import annotations


class ScenarioError(Exception):
    """Base of every scenario failure (load or run)."""


class ScenarioLoadError(ScenarioError):
    """The file is not a valid scenario: raised before the node does anything."""

    def __init__(self, file: str, where: str, key: str | None, message: str) -> None:
        self.file = file
        self.where = where
        self.key = key
        self.message = message
        loc = f"{file}: {where}" if where else file
        if key:
            loc += f": key '{key}'"
        super().__init__(f"{loc}: {message}")


class StepFailed(ScenarioError):
    """A step did not do what it said (a refused tx, a failed expect, a missing chain)."""

    def __init__(self, label: str, kind: str, message: str) -> None:
        self.label = label
        self.kind = kind
        self.message = message
        super().__init__(f"step {label} ({kind}) failed: {message}")


class ChainUnavailable(Exception):
    """Raised inside a step when the chain it needs is not part of this build yet."""

    def __init__(self, alias: str) -> None:
        names = {"C": "C-Chain", "X": "X-Chain", "P": "P-Chain"}
        self.alias = alias
        super().__init__(f"{names.get(alias, alias)} not available in this build "
                         f"(its API answers 'method not found')")


class StepError(Exception):
    """Raised by a step action with a plain message; the runner adds the step label."""


class ExpectationFailed(StepError):
    pass
