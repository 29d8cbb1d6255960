"""What a scenario run did: the txs each step sent and the run's figures (steps, txs, blocks,
virtual and wall time), as the summary and the golden trace report them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class TxRecord:
    step: str
    chain: str
    id: str


@dataclass(slots=True)
class RunStats:
    steps: int = 0
    txs: int = 0
    start_ms: int = 0
    end_ms: int = 0
    wall_s: float = 0.0
    heights_before: dict[str, int] = field(default_factory=dict)
    heights_after: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what the summary must also say
    skipped: list[str] = field(default_factory=list)  # steps a live target cannot do, left out

    @property
    def blocks(self) -> dict[str, int]:
        return {c: self.heights_after.get(c, 0) - self.heights_before.get(c, 0) for c in self.heights_after}

    def summary(self) -> str:
        virt = (self.end_ms - self.start_ms) / 1000
        blocks = ", ".join(f"{c} {n}" for c, n in self.blocks.items()) or "none"
        text = (f"{self.steps} steps, {self.txs} txs, blocks: {blocks}; virtual time covered "
                f"{_fmt_duration(virt)}; wall time {self.wall_s:.2f}s")
        if self.skipped:
            text += f"; {len(self.skipped)} step(s) skipped (the target cannot do them)"
        return "; ".join([text, *self.notes])


def _fmt_duration(seconds: float) -> str:
    s = int(seconds)
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    parts = [f"{d}d"] if d else []
    if h:
        parts.append(f"{h}h")
    if m:
        parts.append(f"{m}m")
    if s or not parts:
        parts.append(f"{s}s")
    return "".join(parts)
