"""Divergences from AvalancheGo v1.14.2 that are known: deliberate ones (simnode differs on purpose,
docs/avalanchego-differential.md says why) and open ones (simnode bugs not fixed yet). Anything
the differential check finds outside these lists and differ.ALLOWED is new."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .differ import Divergence


@dataclass(frozen=True, slots=True)
class Known:
    method: str  # regex on the call's method (or label for raw bodies)
    where: str   # regex on the JSON path
    kind: str    # "deliberate" | "open"
    reason: str
    label: str = ""  # regex on the call's label, when the method alone says too little
    params: str = ""  # regex on the call's params as JSON, when the method alone says too little


KNOWN: tuple[Known, ...] = (
    # deliberate
    Known(r"^info\.getNodeVersion$", r"\.gitCommit$", "deliberate",
          "simnode is not a build of AvalancheGo's tree: no git commit"),
    Known(r"^eth_accounts$", r"^\$ keys$", "deliberate",
          "dev accounts (eth_accounts, eth_sendTransaction) as a development node serves them"),
    Known(r"^(debug_|txpool_)", r".", "deliberate", "debug_* and txpool_* are on, as on a development node"),
    Known(r"^eth_(getBlockBy(Number|Hash)|getHeaderBy(Number|Hash))$", r"\.stateRoot$", "deliberate",
          "block 1 of every EVM chain places the ICM messenger and its deployer (icm/placement.py)"),
    Known(r"^warp_getMessage$", r"^\$ keys$", "deliberate",
          "warp_* also take a message ID as 0x-hex (the form a receipt's log topic has)"),
    Known(r"^platform\.getProposedHeight$", r".", "deliberate",
          "no proposervm: the proposed P-Chain height is the current one (a lone real node keeps 0)"),
    Known(r"^platform\.(getValidatorsAt|getAllValidatorsAt)$", r".", "deliberate",
          "no proposervm: the proposed P-Chain height is the current one (a lone real node keeps 0)",
          params=r'"height": "proposed"'),
    Known(r"^platform\.getCurrentValidators$", r"^\$\.result\.validators\[\d+\]\.(txID|signer\.\w+)$", "deliberate",
          "a genesis staker whose BLS secret simnode does not hold (a custom genesis) signs with a key derived "
          "from the seed, listed in its place, so the Primary Network's validators can sign Warp messages",
          params=r"^(?!.*subnetID)"),
    Known(r"^platform\.getValidatorsAt$", r"^\$\.result\.NodeID-\w+\.publicKey$", "deliberate",
          "a genesis staker whose BLS secret simnode does not hold (a custom genesis) signs with a key derived "
          "from the seed, listed in its place, so the Primary Network's validators can sign Warp messages",
          params=r"^(?!.*subnetID)"),
    Known(r"^platform\.getAllValidatorsAt$",
          r"^\$\.result\.validatorSets\.11111111111111111111111111111111LpoYY\.validators\[\d+\]\.(publicKey|nodeIDs)",
          "deliberate",
          "a genesis staker whose BLS secret simnode does not hold (a custom genesis) signs with a key derived "
          "from the seed, listed in its place (and the canonical set is in key order)"),
    Known(r"^platform\.getBlockchainStatus$", r"\.status$", "deliberate",
          "simnode runs every chain (a real node runs only tracked subnets' chains: 'Created')"),
)


def known(d: Divergence) -> Known | None:
    method = d.call.method if d.call.method != "raw" else d.call.label
    for k in KNOWN:
        if re.search(k.method, method) and re.search(k.where, d.where) and re.search(k.label, d.call.label) \
                and (not k.params or re.search(k.params, _params(d))):
            return k
    return None


def _params(d: Divergence) -> str:
    body = d.call.body
    return json.dumps(body.get("params")) if isinstance(body, dict) else ""


def classify(divs: list[Divergence]) -> tuple[dict[Known, int], list[Divergence]]:
    """Counts per known entry, and the divergences no entry explains."""
    counts: dict[Known, int] = {}
    new: list[Divergence] = []
    for d in divs:
        k = known(d)
        if k is None:
            new.append(d)
        else:
            counts[k] = counts.get(k, 0) + 1
    return counts, new
