"""What the path parameters name, in one place: `{network}`, `{chainId}`, `{blockchainId}`, EVM addresses.

* `{network}`: `mainnet`, `fuji` and `testnet` all name the running network (the SDKs refuse any
  other name, so a local network answers to all three); the document's enum check rejects the rest.
* `{chainId}` (EVM routes): the chain's EVM chain ID in decimal (43112 for the local C-Chain, each
  L1's own), its blockchain ID in cb58, or a node alias of it ("C").
* `{blockchainId}` (primary network routes): `p-chain`/`x-chain`/`c-chain`, the real mainnet and
  Fuji IDs of the P-, X- and C-Chain (the SDK's enum makes clients send those), and this node's
  own chain IDs, all mapped onto this node's P-, X- and C-Chain.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...formats.ids import EVM_VM_ID, SUBNET_EVM_VM_ID, ZERO_ID, id_to_str
from .errors import bad_request, not_found, unavailable
from .params import ParamSpec, decimal, enum_message

if TYPE_CHECKING:
    from ..node_services import NodeServices

P_CHAIN, X_CHAIN, C_CHAIN = "p-chain", "x-chain", "c-chain"

# The IDs of the BlockchainId enum, by the chain they name (mainnet and Fuji share the P-Chain's).
_KNOWN_PRIMARY_IDS = {
    "11111111111111111111111111111111LpoYY": P_CHAIN,
    "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM": X_CHAIN,  # mainnet
    "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm": X_CHAIN,  # fuji
    "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5": C_CHAIN,  # mainnet
    "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp": C_CHAIN,  # fuji
    P_CHAIN: P_CHAIN, X_CHAIN: X_CHAIN, C_CHAIN: C_CHAIN,
}
EVM_VM_IDS = (EVM_VM_ID, SUBNET_EVM_VM_ID)
MAX_EVM_CHAIN_ID = 2**256 - 1  # a uint256 in the genesis config
_EVM_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}\Z")


def local_primary_ids(node: NodeServices) -> dict[str, str]:
    g = node.genesis
    return {id_to_str(ZERO_ID): P_CHAIN, id_to_str(g.x_chain_id): X_CHAIN, id_to_str(g.c_chain_id): C_CHAIN}


def primary_chain_name(node: NodeServices, ref: str) -> str | None:
    """`p-chain`, `x-chain` or `c-chain` for any name of a primary chain; None otherwise."""
    return _KNOWN_PRIMARY_IDS.get(ref) or local_primary_ids(node).get(ref)


def blockchain_param(node: NodeServices) -> Any:
    """The `{blockchainId}` check: a primary chain the route's enum admits (PChainId admits only the
    P-Chain's names, BlockchainId all three), named by any of its names; the value becomes
    `p-chain`, `x-chain` or `c-chain`. Where the document gives no enum (getBlockchainById takes
    any blockchain), the value is left as sent."""
    def check(value: str, spec: ParamSpec) -> str:
        if not spec.enum:
            return value
        allowed = {_KNOWN_PRIMARY_IDS[v] for v in spec.enum if v in _KNOWN_PRIMARY_IDS}
        name = primary_chain_name(node, value)
        if name is None or name not in allowed:
            local = [k for k, v in local_primary_ids(node).items() if v in allowed and k not in spec.enum]
            raise bad_request(enum_message(spec.name, [*spec.enum, *local]))
        return name
    return check


def is_evm(chain: Any) -> bool:
    return chain.vm_id in EVM_VM_IDS


def evm_chain_id_of(node: NodeServices, chain: Any) -> int:
    """The EVM chain ID (a C-Chain still loading is known from the genesis)."""
    evm_id = getattr(chain, "evm_chain_id", None)
    return int(evm_id) if evm_id is not None else node.genesis.c_chain_genesis.chain_id


def evm_chains(node: NodeServices) -> list[Any]:
    """The node's EVM chains: the C-Chain first, then the L1 chains by EVM chain ID."""
    chains = [c for c in node.chains.values() if is_evm(c)]
    return sorted(chains, key=lambda c: (c.subnet_id != ZERO_ID, evm_chain_id_of(node, c)))


def evm_chain(node: NodeServices, ref: str) -> Any:
    """The EVM chain `{chainId}` names; 404 when the node has none by that name."""
    if ref.isascii() and ref.isdigit():
        evm_id = decimal(ref, MAX_EVM_CHAIN_ID)
        for chain in evm_chains(node):
            if evm_chain_id_of(node, chain) == evm_id:
                return chain
    else:
        chain = node.chain_by_alias(ref)
        if chain is not None and is_evm(chain):
            return chain
    known = ", ".join(str(evm_chain_id_of(node, c)) for c in evm_chains(node))
    raise not_found(f"chain {ref} is not an EVM chain of this node (its EVM chains: {known})")


def ready_evm_chain(node: NodeServices, ref: str) -> Any:
    """As evm_chain, for routes that read the chain's state: 503 while it is still loading."""
    chain = evm_chain(node, ref)
    if not chain.is_bootstrapped():
        raise unavailable(f"chain {ref} is not done bootstrapping")
    return chain


def evm_address(name: str, value: str) -> bytes:
    """A 20-byte EVM address from `0x` + 40 hex digits (any case; the checksum is not required)."""
    if _EVM_ADDRESS.match(value) is None:
        raise bad_request(f"{name} must be an Ethereum address")
    return bytes.fromhex(value[2:])
