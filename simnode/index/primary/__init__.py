"""The primary network's index: P- and X-Chain blocks and the C-Chain's atomic txs.

Writers (families of the driver, fed each accepted block in its own batch): platform.py (the
P-Chain: UTXOs, stakers and their rewards, subnets, chains, L1 validators), avm.py (the X-Chain:
UTXOs, assets), catomic.py (the C-Chain's import/export txs, an extension of the EVM family);
utxos.py holds what they share. The tables are described in layout.py; the query/ package reads them.

Reading (query/: scan.py, then utxo_rows, tx_rows, staker_rows, subnet_rows, all named by the
package as `query.X`): raw records (Out/Spend for UTXOs, dicts for stakers, subnets, chains, L1
validators, txs) and keyset pages (`Page(items, next)`, `next` opaque bytes for a pageToken).
The REST layer (simnode/api/data/primary_*.py) formats them.
"""
