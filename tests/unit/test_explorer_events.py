"""The explorer's table of known events (static/js/events.js): every topic is keccak256 of its
signature, and the signatures of the ICM messenger's events are simnode's own (icm/events.py)."""

from __future__ import annotations

import re
from importlib import resources

from simnode.crypto.hashing import keccak256
from simnode.icm import events as icm_events
from simnode.vms.evm.precompiles import warp

SOURCE = resources.files("simnode.api.explorer").joinpath("static", "js", "events.js").read_text()
CONSTANTS = dict(re.findall(r"const (MESSAGE|FEE) = '([^']+)';", SOURCE))


def rows() -> list[tuple[str, str, str]]:
    out = []
    for topic, standard, sig in re.findall(r"\['(0x[0-9a-f]{64})', '([^']+)', [`']([^`']+)[`']", SOURCE):
        out.append((topic, standard, re.sub(r"\$\{(\w+)\}", lambda m: CONSTANTS[m.group(1)], sig)))
    return out


def test_every_topic_is_the_keccak_of_its_signature():
    table = rows()
    assert len(table) == 20
    for topic, _, sig in table:
        assert "0x" + keccak256(sig.encode()).hex() == topic, sig


def test_icm_and_warp_topics_are_simnodes():
    by_standard = {}
    for topic, standard, _ in rows():
        by_standard.setdefault(standard, set()).add(bytes.fromhex(topic[2:]))
    messenger = {v for k, v in vars(icm_events).items() if k.isupper() and isinstance(v, bytes) and len(v) == 32}
    assert by_standard["ICM"] == messenger
    assert by_standard["Warp"] == {warp.SEND_WARP_MESSAGE.to_bytes(32, "big")}
