"""Reading the primary-network index: raw records and keyset pages.

Every list is a range scan of one table, or a merge of the range scans of several keys of one
table (one per address or node asked for), in key order; a cursor is the suffix of the last row
a page returned (a page of a multi-key list has one cursor for all its keys). A filter the table's
order does not serve is applied while scanning; such a page stops after SCAN_BUDGET rows it did
not keep and hands out a cursor there, so it can hold fewer items than asked (as the hosted API's
transaction lists may) but never costs more than a bounded scan. Bounds: `lo` inclusive, `hi`
exclusive, on the key's suffix; times are unix seconds.

scan.py holds the scans and pages; utxo_rows.py reads UTXOs, tx_rows.py blocks, txs and assets,
staker_rows.py stakers and rewards, subnet_rows.py L1 validators, subnets and chains.
"""

from ...page import CursorError, Page
from .scan import SCAN_BUDGET
from .staker_rows import (Record, ValidatorFilter, delegators, node_validations, rewards, staker, stakers_of,
                          status_of, uptime_of, validator_at, validators)
from .subnet_rows import blockchain, blockchains, l1_validator, l1_validators, subnet, subnet_chains, subnets
from .tx_rows import BlockRow, TxRow, asset, block, block_by_id, blocks, staking_txs, tx, tx_at, txs
from .utxo_rows import Utxo, has_activity, last_activity, locked_utxos, total, utxo, utxos, utxos_at

__all__ = ["SCAN_BUDGET", "BlockRow", "CursorError", "Page", "Record", "TxRow", "Utxo", "ValidatorFilter", "asset",
           "block", "block_by_id", "blockchain", "blockchains", "blocks", "delegators", "has_activity",
           "l1_validator", "l1_validators", "last_activity", "locked_utxos", "node_validations", "rewards", "staker",
           "stakers_of", "staking_txs", "status_of", "subnet", "subnet_chains", "subnets", "total", "tx", "tx_at",
           "txs", "uptime_of", "utxo", "utxos", "utxos_at", "validator_at", "validators"]
