"""Each staker's history record (kind, period, rewards, start and end heights) as the P-Chain writes
it when a staker is added and when it leaves; the Data API's staking routes read it."""

from __future__ import annotations

from .state import Staker, State


def history_add(state: State, s: Staker, kind: str) -> None:
    state.put_history(s.tx_id, {
        "kind": kind, "status": "active", "nodeID": s.node_id, "subnetID": s.subnet_id, "weight": s.weight,
        "start": s.start, "end": s.end, "potentialReward": s.potential_reward, "delegationFee": s.delegation_shares,
        "rewardAmount": 0, "delegateeReward": 0, "rewardUTXOs": [], "rewardTxID": None, "endHeight": None,
        "startHeight": state.meta.height + 1 if state.w is not None and state.meta.last_block_id
        != bytes(32) else 0,
    })


def history_end(state: State, s: Staker, status: str, amount: int, utxo_ids: list[bytes], delegatee: int = 0,
                reward_tx_id: bytes | None = None) -> None:
    """The staker's end in its history; endHeight is the block being built (a reward: its proposal block)."""
    state.facts.ended.append(s.tx_id)
    rec = state.get_history(s.tx_id) or {}
    rec.update({"status": status, "rewardAmount": amount, "delegateeReward": delegatee,
                "rewardUTXOs": utxo_ids, "rewardTxID": reward_tx_id,
                "endHeight": state.meta.height + 1, "endTime": state.meta.timestamp})
    state.put_history(s.tx_id, rec)
