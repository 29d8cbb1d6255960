"""Metric rows: the Metrics API's time series, derived per accepted block in the block's batch.

evm.py adds the EVM metric rows of a block (a second family of the EVM VMs, after the EVM
tables); platform.py is the P-Chain's family (staker counts and weights, L1 validators'
continuous fees); buckets.py the UTC hour/day/week/month buckets; layout.py the tables;
query.py and stake_query.py read them for the REST layer.
"""
