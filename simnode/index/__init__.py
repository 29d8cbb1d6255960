"""Derived indexes fed by accepted blocks; what the Data API reads. No HTTP here.

Writing. The node builds one `Indexer(store)` (driver.py) and hands it to every chain through
ChainContext.indexer; a chain calls `indexer.block_accepted(chain, row, batch)` with each block's
stored row and the block's own batch (genesis and mine_empty included), so index rows, block
and last-accepted pointer commit together and snapshot/revert moves them together. The driver
routes by VM ID to a family (today `evm`: the C-Chain and every subnet-EVM L1) and keeps a
per-chain marker of the last block indexed; `chain_opened` catches a chain up (blocks accepted
while the node ran with --no-index); `rebuild` (`simnode reindex`) deletes the namespace and
derives every row again from the block rows. Keys: keys.py; pages: page.py; EVM tables:
evm/layout.py.

Reading (evm/query.py). All values are raw: ints, 20-byte addresses, 32-byte hashes, ms
timestamps; formatting (hex, checksums, strings for big numbers) is the REST layer's job. Lists
return `Page(items, next)`; `next` is opaque bytes (None on the last page) to encode into a
pageToken and pass back as `cursor`; a cursor of the wrong shape raises `CursorError` (a 400).
Lists are newest first unless `reverse=False` (sortOrder=asc); `start_block` is inclusive and
`end_block` exclusive, as the spec's startBlock/endBlock.

    from simnode.index.evm.query import EvmIndex, address_chains, all_blocks, all_transactions
    ix = EvmIndex(store, blockchain_id)           # one chain (32-byte blockchain ID)
    ix.head()                                     # last block indexed

Routes and the calls that serve them (`{address}` as 20 bytes):

    /v1/chains/{c}/blocks                         ix.blocks(limit, cursor) -> Block
    /v1/chains/{c}/blocks/{blockId}               ix.block(number) | ix.block_by_hash(hash)
    /v1/chains/{c}/blocks/{blockId}/transactions  ix.block_transactions(number, limit, cursor) -> Tx
    /v1/chains/{c}/transactions [status]          ix.transactions(limit, cursor, status=1|0|None) -> Tx
    /v1/chains/{c}/transactions/{txHash}          ix.tx_details(hash) -> TxDetails (tx, block for
                                                  baseFeePerGas, transfers, frames)
    /v1/chains/{c}/addresses/{a}/transactions     ix.address_transactions(a, limit, cursor, reverse,
        and /v2/...                               start_block, end_block) -> AddressTx (tx + only the
                                                  transfers and internal txs `a` is part of)
    .../transactions:listNative                   ix.native_transactions(a, ...) -> Tx
    .../transactions:listErc20|Erc721|Erc1155     ix.erc20_transfers / erc721_transfers /
                                                  erc1155_transfers(a, ...) -> Transfer
    .../transactions:listInternals                ix.internal_transactions(a, ...) -> Frame
    /v1/chains/{c}/tokens/{a}/transfers           ix.token_transfers(token, ...) -> Transfer
    .../balances:listErc20 [blockNumber, contractAddresses]
                                                  ix.erc20_balances(owner, limit, cursor, block,
                                                  tokens) -> Erc20Balance (non-zero only)
    .../balances:listErc721 [contractAddress]     ix.erc721_holdings(owner, limit, cursor, token)
    .../balances:listErc1155 [blockNumber, contractAddress]
                                                  ix.erc1155_balances(owner, limit, cursor, block, token)
    .../balances:listCollectibles                 ix.collectibles(owner, limit, cursor, token)
                                                  -> NftBalance (721 and 1155 together)
    /v1/chains/{c}/addresses/{a}                  ix.contract(a) -> Contract (creation + Token
                                                  metadata; None: no creation made it)
    /v1/chains/{c}/contracts/{a}/deployments      ix.deployments(a, limit, cursor) -> Contract
    .../contracts/{a}/transactions:getDeployment  ix.contract(a).tx_hash, then ix.tx_details
    /v1/chains/{c}/nfts/collections/{a}/tokens[/{id}]
                                                  ix.nft_tokens(token, limit, cursor) / ix.nft(token, id)
    /v1/blocks, /v1/transactions [status]         all_blocks(store, ...), all_transactions(store, ...)
    /v1/address/{a}/chains                        address_chains(store, a) -> blockchain IDs
                                                  (indexed_chains(store): every chain with rows)

Shapes to note: Tx.to is b"" for a creation (Tx.receiver / Tx.contract give the created
address), Tx.call_type and Tx.method_id fill `method`; Block.gas_cost is the header's blockGasCost;
Transfer.meta / Contract.token / NftBalance.meta carry the token's standard, name, symbol and
decimals (None when it was never detected), Transfer.uri / Nft.uri the tokenURI or uri read when
the ID first appeared (parse `data:` URIs for NFT metadata; nothing is fetched). Frame.kind is
the opcode name (SELFDESTRUCT frames are recorded in a tx's frames but are no listed internal tx:
the spec's enum has no such value), Frame.reverted is isReverted. Native balances, code and
nonces are VM state (eth_getBalance & co.), not index rows.
"""

from .driver import Indexer, rebuild

__all__ = ["Indexer", "rebuild"]
