"""The index's EVM records as the Data API's JSON shapes, for one chain (`EvmJson`).

Conventions of the document (data-api.md §0.5), all kept here: block numbers, amounts, gas and
nonces are decimal strings; timestamps and indexes are numbers; hashes and input are 0x-hex;
addresses are EIP-55 checksummed; an optional field with no value is left out (the pipeline drops
None), a required string with no value (a token that never answered name()) is "".

* RichAddress: the address, and the name, symbol and decimals the index read from it when it is
  a token contract.
* `blockTimestampMilliseconds` and `blockMinDelayExcess` exist from Granite on, as on the chain.
* Method: callType from the tx (creation, call with input, plain transfer); methodHash the
  selector of a call ("" otherwise, as the document says); methodName "Native Transfer" /
  "Contract Created" as the document says, and for a call only when the selector is one of the
  token standards' functions (there is no ABI registry locally).
* Internal transactions: the document lists CALL/CALLCODE moving value and CREATE/CREATE2 below
  the tx itself (the index's is_listed_internal), reverted ones with isReverted. gasUsed of a
  creation counts its code deposit, as geth's frames do.
* ERC-20 `tokenReputation` (required, nullable: the security analysis is the hosted service's)
  is null: `NULL` survives the pipeline's removal of None.
* NFT tokens: tokenUri is the URI read when the ID first appeared (ERC-1155's {id} filled in),
  or the one `:reindex` read since (kept per node in memory, while the block it was read at is
  still on the chain); metadata comes from it (nft_metadata.py); a re-read one carries
  metadataLastUpdatedTimestamp.
* Contracts: Erc20Contract / Erc721Contract / Erc1155Contract by the standard the index detected,
  else UnknownContract; deploymentDetails when the index saw the creation (a contract in the
  genesis alloc has none).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ...crypto.hashing import keccak256
from ...index.evm.layout import is_listed_internal
from ...index.evm.query import Block, Contract, EvmIndex, Frame, Token, Transfer, Tx, TxDetails
from ...index.evm.tokens import selector
from .context import NULL
from .nft_metadata import resolved_uri, token_metadata

ERC20, ERC721, ERC1155 = "ERC-20", "ERC-721", "ERC-1155"
ZERO_ADDRESS = bytes(20)


@functools.lru_cache(maxsize=8192)  # ~250 bytes an address: ~2 MB (docs/memory.md)
def checksum(address: bytes) -> str:
    """EIP-55 (eth_utils' to_checksum_address takes ~30 µs; this ~7 µs, and lists repeat addresses)."""
    plain = address.hex()
    digest = keccak256(plain.encode()).hex()
    return "0x" + "".join(c.upper() if d in "89abcdef" else c for c, d in zip(plain, digest))


def hex0x(data: bytes) -> str:
    return "0x" + data.hex()


_STANDARD_FUNCTIONS = (
    "transfer(address,uint256)", "approve(address,uint256)", "transferFrom(address,address,uint256)",
    "safeTransferFrom(address,address,uint256)", "safeTransferFrom(address,address,uint256,bytes)",
    "setApprovalForAll(address,bool)", "safeTransferFrom(address,address,uint256,uint256,bytes)",
    "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)")
METHOD_NAMES = {selector(sig): sig for sig in _STANDARD_FUNCTIONS}


def method(tx: Tx) -> dict[str, Any]:
    kind = tx.call_type
    if kind == "CONTRACT_CREATION":
        return {"callType": kind, "methodHash": "", "methodName": "Contract Created"}
    if kind == "NATIVE_TRANSFER":
        return {"callType": kind, "methodHash": "", "methodName": "Native Transfer"}
    method_id = tx.method_id
    return {"callType": kind, "methodHash": hex0x(method_id), "methodName": METHOD_NAMES.get(method_id)}


@dataclass(frozen=True, slots=True)
class Reread:
    """A token URI `:reindex` read at the head of the chain."""

    uri: str | None
    block_number: int
    block_hash: bytes
    at_ms: int


RereadUris = dict[tuple[bytes, bytes, int], Reread]  # (chain ID, token, token ID) -> Reread


class EvmJson:
    """Formats one chain's records; caches the token metadata and blocks one response reads."""

    def __init__(self, ix: EvmIndex, evm_id: str, granite_s: int, rereads: RereadUris) -> None:
        self.ix = ix
        self.evm_id = evm_id
        self.granite_ms = granite_s * 1000
        self.rereads = rereads
        self._tokens: dict[bytes, Token | None] = {}
        self._blocks: dict[int, Block | None] = {}

    # ------------------------------------------------------------------ shared parts

    def token(self, address: bytes) -> Token | None:
        if address not in self._tokens:
            self._tokens[address] = self.ix.token(address)
        return self._tokens[address]

    def block_record(self, number: int) -> Block | None:
        if number not in self._blocks:
            self._blocks[number] = self.ix.block(number)
        return self._blocks[number]

    def rich(self, address: bytes) -> dict[str, Any]:
        out: dict[str, Any] = {"address": checksum(address)}
        token = self.token(address)
        if token is not None:
            out.update(name=token.name, symbol=token.symbol, decimals=token.decimals)
        return out

    def times(self, ms: int) -> dict[str, Any]:
        return {"blockTimestamp": ms // 1000, "blockTimestampMilliseconds": ms if ms >= self.granite_ms else None}

    # ------------------------------------------------------------------ blocks and txs

    def block(self, b: Block) -> dict[str, Any]:
        return {
            "chainId": self.evm_id, "blockNumber": str(b.number), "blockTimestamp": b.timestamp,
            "blockTimestampMilliseconds": b.timestamp_ms if b.min_delay_excess is not None else None,
            "blockMinDelayExcess": b.min_delay_excess, "blockHash": hex0x(b.hash), "txCount": b.tx_count,
            "baseFee": str(b.base_fee), "gasUsed": str(b.gas_used), "gasLimit": str(b.gas_limit),
            "gasCost": str(b.gas_cost), "parentHash": hex0x(b.parent_hash), "feesSpent": str(b.fees_spent),
            "cumulativeTransactions": str(b.cumulative_txs)}

    def native_tx(self, tx: Tx) -> dict[str, Any]:
        block = self.block_record(tx.block_number)
        granite = block is not None and block.min_delay_excess is not None
        return {
            "blockNumber": str(tx.block_number), "blockTimestamp": tx.timestamp_ms // 1000,
            "blockTimestampMilliseconds": tx.timestamp_ms if granite else None,
            "blockMinDelayExcess": block.min_delay_excess if block is not None else None,
            "blockHash": hex0x(tx.block_hash), "chainId": self.evm_id, "blockIndex": tx.index,
            "txHash": hex0x(tx.hash), "txStatus": str(tx.status), "txType": tx.type, "gasLimit": str(tx.gas_limit),
            "gasUsed": str(tx.gas_used), "gasPrice": str(tx.gas_price), "nonce": str(tx.nonce),
            "from": self.rich(tx.sender), "to": self.rich(tx.receiver or ZERO_ADDRESS), "method": method(tx),
            "value": str(tx.value)}

    def full_native_tx(self, d: TxDetails) -> dict[str, Any]:
        tx = d.tx
        return {**self.native_tx(tx), "input": hex0x(tx.input), "baseFeePerGas": str(d.block.base_fee),
                "maxFeePerGas": None if tx.max_fee is None else str(tx.max_fee),
                "maxPriorityFeePerGas": None if tx.tip is None else str(tx.tip)}

    def tx_parts(self, transfers: tuple[Transfer, ...], frames: tuple[Frame, ...], v2: bool = False) -> dict[str, Any]:
        """The transfer and internal-tx lists of a tx (TransactionDetails, GetTransactionResponse)."""
        out: dict[str, list] = {"erc20Transfers": [], "erc721Transfers": [], "erc1155Transfers": []}
        for t in transfers:
            out[_LISTS[t.standard]].append(self.transfer_details(t, v2))
        out["internalTransactions"] = [self.internal_details(f) for f in frames
                                       if is_listed_internal(f.kind, f.value > 0, f.depth)]
        return out

    # ------------------------------------------------------------------ token transfers

    def erc20_token(self, address: bytes, meta: Token | None, v2: bool = False) -> dict[str, Any]:
        out = {"address": checksum(address), "name": _text(meta, "name"), "symbol": _text(meta, "symbol"),
               "decimals": meta.decimals if meta is not None and meta.decimals is not None else 0,
               "ercType": ERC20}
        if v2:
            out["tokenReputation"] = NULL
        return out

    def nft_token(self, address: bytes, token_id: int, standard: str, uri: str | None,
                  meta: Token | None) -> dict[str, Any]:
        """Erc721Token or Erc1155Token."""
        erc1155 = standard == ERC1155
        uri, reread_ms = self.current_uri(address, token_id, uri)
        uri = resolved_uri(uri, token_id, erc1155)
        metadata = token_metadata(uri, token_id, erc1155)
        if reread_ms is not None:
            metadata["metadataLastUpdatedTimestamp"] = reread_ms // 1000
        out: dict[str, Any] = {"address": checksum(address)}
        if not erc1155:
            out.update(name=_text(meta, "name"), symbol=_text(meta, "symbol"))
        out.update(ercType=standard, tokenId=str(token_id), tokenUri=uri or "", metadata=metadata)
        return out

    def current_uri(self, address: bytes, token_id: int, indexed: str | None) -> tuple[str | None, int | None]:
        """The token's URI and, when `:reindex` read it, when (ms); a re-read from a block the chain
        no longer has (reverted) no longer counts."""
        key = (self.ix.chain_id, address, token_id)
        reread = self.rereads.get(key)
        if reread is None:
            return indexed, None
        block = self.ix.block(reread.block_number)
        if block is None or block.hash != reread.block_hash:
            del self.rereads[key]
            return indexed, None
        return reread.uri, reread.at_ms

    def transfer_details(self, t: Transfer, v2: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"from": self.rich(t.sender), "to": self.rich(t.to), "logIndex": t.log_index}
        if t.standard == ERC20:
            out.update(value=str(t.amount), erc20Token=self.erc20_token(t.token, t.meta, v2))
        elif t.standard == ERC721:
            out["erc721Token"] = self.nft_token(t.token, t.token_id or 0, ERC721, t.uri, t.meta)
        else:
            out.update(value=str(t.amount),
                       erc1155Token=self.nft_token(t.token, t.token_id or 0, ERC1155, t.uri, t.meta))
        return out

    def transfer(self, t: Transfer) -> dict[str, Any]:
        """Erc20Transfer / Erc721Transfer / Erc1155Transfer: the details with their block and tx."""
        return {"blockNumber": str(t.block_number), **self.times(t.timestamp_ms), "blockHash": hex0x(t.block_hash),
                "txHash": hex0x(t.tx_hash), **self.transfer_details(t)}

    # ------------------------------------------------------------------ internal transactions

    def internal_details(self, f: Frame) -> dict[str, Any]:
        return {"from": self.rich(f.sender), "to": self.rich(f.to), "internalTxType": f.kind, "value": str(f.value),
                "isReverted": f.reverted, "gasUsed": str(f.gas_used), "gasLimit": str(f.gas_limit)}

    def internal(self, f: Frame) -> dict[str, Any]:
        return {"blockNumber": str(f.block_number), **self.times(f.timestamp_ms), "blockHash": hex0x(f.block_hash),
                "txHash": hex0x(f.tx_hash), **self.internal_details(f)}

    # ------------------------------------------------------------------ contracts

    def contract(self, address: bytes, creation: Contract | None) -> dict[str, Any]:
        token = creation.token if creation is not None else self.token(address)
        out: dict[str, Any] = {"address": checksum(address), "ercType": token.standard if token else "UNKNOWN"}
        if token is not None:
            out.update(name=token.name, symbol=token.symbol)
            if token.standard == ERC20:
                out["decimals"] = token.decimals if token.decimals is not None else 0
        if creation is not None:
            out["deploymentDetails"] = {
                "txHash": hex0x(creation.tx_hash), "deployerAddress": checksum(creation.deployer),
                "deployerContractAddress": checksum(creation.creator) if creation.internal else None}
        return out


_LISTS = {ERC20: "erc20Transfers", ERC721: "erc721Transfers", ERC1155: "erc1155Transfers"}


def _text(meta: Token | None, field: str) -> str:
    value = getattr(meta, field) if meta is not None else None
    return value if value is not None else ""
