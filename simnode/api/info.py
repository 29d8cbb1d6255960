"""The info API (`/ext/info`), node-api.md §5."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..crypto import bls
from ..formats.address import network_name
from ..formats.hexenc import encode_bytes
from ..formats.ids import (
    AVM_VM_ID, EVM_VM_ID, NFTFX_ID, PLATFORM_VM_ID, PROPERTYFX_ID, SECP256K1FX_ID, SUBNET_EVM_VM_ID, id_to_str,
    node_id_from_str, node_id_to_str,
)
from ..formats.errors import FormatError
from ..formats.jsonnum import format_rfc3339
from ..network import params_for
from ..rpc.jsonrpc import GorillaService, RPCError
from ..rpc.params import bad_arg, str_arg

if TYPE_CHECKING:
    from .node_services import NodeServices

NODE_VERSION = "avalanchego/1.14.2"
EVM_VERSION = "v1.14.2"
SUBNET_EVM_VERSION = "v1.14.2"
RPC_PROTOCOL_VERSION = "45"
DATABASE_VERSION = "v1.4.5"
# Local networks: each node's staking port sits one above its HTTP port (9651, 9653, ...).
STAKING_PORT_OFFSET = 1


def upgrades_json(network_id: int) -> dict[str, Any]:
    u = params_for(network_id).upgrades
    t = format_rfc3339
    return {
        "apricotPhase1Time": t(u.apricot_phase1), "apricotPhase2Time": t(u.apricot_phase2),
        "apricotPhase3Time": t(u.apricot_phase3), "apricotPhase4Time": t(u.apricot_phase4),
        "apricotPhase4MinPChainHeight": u.apricot_phase4_min_p_height, "apricotPhase5Time": t(u.apricot_phase5),
        "apricotPhasePre6Time": t(u.apricot_phase_pre6), "apricotPhase6Time": t(u.apricot_phase6),
        "apricotPhasePost6Time": t(u.apricot_phase_post6), "banffTime": t(u.banff), "cortinaTime": t(u.cortina),
        "cortinaXChainStopVertexID": u.cortina_stop_vertex, "durangoTime": t(u.durango), "etnaTime": t(u.etna),
        "fortunaTime": t(u.fortuna), "graniteTime": t(u.granite), "graniteEpochDuration": u.granite_epoch_ns,
        "heliconTime": t(u.helicon),
    }


def build_service(node: NodeServices) -> GorillaService:
    net = node.config.network_id

    def get_node_version(_: dict[str, Any]) -> dict[str, Any]:
        # the subnet-EVM plugin is a VM of the node too (under its VM ID: it has no alias); the
        # one built in AvalancheGo's tree reports AvalancheGo's version
        vm_versions = {"avm": NODE_VERSION, "evm": EVM_VERSION, "platform": NODE_VERSION,
                       id_to_str(SUBNET_EVM_VM_ID): SUBNET_EVM_VERSION}
        return {"version": NODE_VERSION, "databaseVersion": DATABASE_VERSION,
                "rpcProtocolVersion": RPC_PROTOCOL_VERSION, "gitCommit": "", "vmVersions": vm_versions}

    def get_node_id(_: dict[str, Any]) -> dict[str, Any]:
        pk = bls.public_key(node.bls_key)
        pop = bls.prove_possession(node.bls_key)
        return {"nodeID": node.node_id_str,
                "nodePOP": {"publicKey": encode_bytes(pk, "hexnc"), "proofOfPossession": encode_bytes(pop, "hexnc")}}

    def get_node_ip(_: dict[str, Any]) -> dict[str, Any]:
        return {"ip": f"{node.config.http_host}:{node.port + STAKING_PORT_OFFSET}"}

    def get_network_id(_: dict[str, Any]) -> dict[str, Any]:
        return {"networkID": str(net)}

    def get_network_name(_: dict[str, Any]) -> dict[str, Any]:
        return {"networkName": network_name(net)}

    def get_blockchain_id(params: dict[str, Any]) -> dict[str, Any]:
        alias = str_arg(params, "alias")
        chain = node.chain_by_alias(alias)
        if chain is None:
            raise RPCError(f"there is no ID with alias: {alias}")
        return {"blockchainID": id_to_str(chain.chain_id)}

    def is_bootstrapped(params: dict[str, Any]) -> dict[str, Any]:
        ref = str_arg(params, "chain")
        if not ref:
            raise RPCError("argument 'chain' not given")
        chain = node.chain_by_alias(ref)
        if chain is None:
            raise RPCError(f"there is no chain with alias/ID '{ref}'")
        return {"isBootstrapped": chain.is_bootstrapped()}

    def get_vms(_: dict[str, Any]) -> dict[str, Any]:
        # subnet-EVM is always there (a real node lists its plugin, unaliased); Go writes map
        # keys sorted
        vms: dict[str, list[str]] = {id_to_str(SUBNET_EVM_VM_ID): []}
        for chain in node.chains.values():
            vms.setdefault(id_to_str(chain.vm_id), [])
        for vm_id, names in _VM_ALIASES.items():
            if vm_id in vms:
                vms[vm_id] = list(names)
        fxs = {id_to_str(SECP256K1FX_ID): "secp256k1fx", id_to_str(NFTFX_ID): "nftfx",
               id_to_str(PROPERTYFX_ID): "propertyfx"}
        return {"vms": dict(sorted(vms.items())), "fxs": dict(sorted(fxs.items()))}

    def peers(params: dict[str, Any]) -> dict[str, Any]:
        wanted = params.get("nodeIDs") or []
        if not isinstance(wanted, list) or not all(_is_node_id(w) for w in wanted):
            raise bad_arg()
        out = [p for p in simulated_peers(node) if not wanted or p["nodeID"] in wanted]
        return {"numPeers": str(len(out)), "peers": out}

    def uptime(_: dict[str, Any]) -> dict[str, Any]:
        return {"rewardingStakePercentage": "100.0000", "weightedAveragePercentage": "100.0000"}

    def acps(_: dict[str, Any]) -> dict[str, Any]:
        # AvalancheGo v1.14.2 has no ACP under vote (CurrentACPs is empty).
        return {"acps": {}}

    def upgrades(_: dict[str, Any]) -> dict[str, Any]:
        return upgrades_json(net)

    def get_tx_fee(_: dict[str, Any]) -> dict[str, Any]:
        f = params_for(net).fees
        return {"txFee": str(f.tx_fee), "createAssetTxFee": str(f.create_asset_tx_fee),
                "createSubnetTxFee": str(f.create_subnet_tx_fee),
                "transformSubnetTxFee": str(f.transform_subnet_tx_fee),
                "createBlockchainTxFee": str(f.create_blockchain_tx_fee),
                "addPrimaryNetworkValidatorFee": str(f.add_primary_network_validator_fee),
                "addPrimaryNetworkDelegatorFee": str(f.add_primary_network_delegator_fee),
                "addSubnetValidatorFee": str(f.add_subnet_validator_fee),
                "addSubnetDelegatorFee": str(f.add_subnet_delegator_fee)}

    return GorillaService({"info": {
        "getNodeVersion": get_node_version, "getNodeID": get_node_id, "getNodeIP": get_node_ip,
        "getNetworkID": get_network_id, "getNetworkName": get_network_name, "getBlockchainID": get_blockchain_id,
        "isBootstrapped": is_bootstrapped, "getVMs": get_vms, "peers": peers, "uptime": uptime, "acps": acps,
        "upgrades": upgrades, "getTxFee": get_tx_fee,
    }})


def _is_node_id(text: Any) -> bool:
    try:
        node_id_from_str(text)
    except (FormatError, TypeError, AttributeError):
        return False
    return True


_VM_ALIASES = {
    id_to_str(AVM_VM_ID): ("avm",), id_to_str(EVM_VM_ID): ("evm",),
    id_to_str(PLATFORM_VM_ID): ("platform",),
}


def simulated_peers(node: NodeServices) -> list[dict[str, Any]]:
    """The other genesis validators, shown as connected peers of a local network."""
    upgrade_time = params_for(node.config.network_id).upgrades.granite
    started = format_rfc3339(node.clock.now()).replace("Z", ".000000000Z")
    out = []
    for i, staker in enumerate(node.genesis.config.initial_stakers):
        if staker.node_id == node.node_id:
            continue
        out.append({
            "ip": f"127.0.0.1:{9651 + 2 * i}", "publicIP": f"127.0.0.1:{9651 + 2 * i}",
            "nodeID": node_id_to_str(staker.node_id), "version": NODE_VERSION, "upgradeTime": upgrade_time,
            "lastSent": started, "lastReceived": started, "observedUptime": "100",
            "trackedSubnets": [], "supportedACPs": [], "objectedACPs": [], "benched": [],
        })
    return out
