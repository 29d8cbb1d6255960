"""State survives a restart: the in-memory sets are rebuilt from the store and due rewards catch up."""

import hashlib

from simnode.clock import VirtualClock
from simnode.config import NodeConfig
from simnode.crypto import bls
from simnode.genesis import load_network_genesis, rebased_start_time
from simnode.store import Store
from simnode.vms.chain_context import ChainContext
from simnode.vms.platform import blocks
from simnode.vms.platform import txs as t
from simnode.vms.platform.wallet import PBuilder
from simnode.vms.platform.vm import PlatformVM

from .platform_helpers import EWOQ, VECTOR_TIME

DAY = 24 * 3600


def _vm(store, clock):
    g = load_network_genesis(12345)
    return PlatformVM(ChainContext(NodeConfig(), g, store, clock, bytes(32), {},
                                   rebased_start_time(g.start_time, VECTOR_TIME)))


def test_restart_rebuilds_and_catches_up(tmp_path):
    store = Store.open(tmp_path / "db")
    clock = VirtualClock(VECTOR_TIME * 1000)
    vm = _vm(store, clock)
    node_id = hashlib.sha256(b"restart").digest()[:20]
    sk = bls.secret_key_from_seed(hashlib.sha256(b"restart-bls").digest())
    stx = PBuilder(vm, [EWOQ]).add_validator(node_id, vm.next_block_time() + 3 * DAY, 2000 * 10**9, sk)
    vm.issue_tx(stx.tx_bytes)
    height, supply = vm.height, vm.current_supply()
    vm.close()
    store.close()

    store = Store.open(tmp_path / "db")
    clock2 = VirtualClock((VECTOR_TIME + 5 * DAY) * 1000)  # the node was down when the staker ended
    vm2 = _vm(store, clock2)
    assert vm2.current_supply() == supply
    assert vm2.height == height + 2  # the reward's proposal and commit blocks were built on start
    st = vm2.state
    types = [blocks.decode_block(st.block_by_id(st.block_id_at(h))).type_id for h in (height + 1, height + 2)]
    assert types == [t.BANFF_PROPOSAL_BLOCK, t.BANFF_COMMIT_BLOCK]
    assert node_id not in vm2.state.validators[bytes(32)]
    assert vm2.state.get_history(stx.tx_id)["status"] == "completed"
    store.close()
