"""Stateful precompiles for simnode's EVM chains (subnet-evm's precompile/ and its activation
rules), in plain Python modules:

* registry.py    the modules simnode runs (`MODULES`, in address order; `BY_KEY`);
* contract.py    what a precompile is (`Module`; vmclasses.make_runner: how py-evm calls one);
* allowlist.py   IAllowList, shared by the allow-listed precompiles;
* txallowlist.py, deployerallowlist.py, nativeminter.py, feemanager.py, rewardmanager.py
                 subnet-EVM's precompiles at 0x0200…0002, …0000, …0001, …0003, …0004;
* warp.py        the Warp precompile at 0x0200…0005 (coreth's and subnet-EVM's), with its
                 predicates (../predicates.py) and their verification;
* upgrades.py    configs from the genesis `config.<key>` and upgrade.json `precompileUpgrades`,
                 parsed and verified as subnet-evm does;
* schedule.py    the `Schedule`: which configs are active at a block timestamp, which activate
                 between two blocks, and what activating does to the state (and the genesis);
* vmclasses.py   the py-evm VM class for a set of active precompiles (their callables, the
                 deployer check on CREATE/CREATE2, the tx check on a tx's sender).

The C-Chain keeps coreth's set: the Warp precompile from Durango (default quorum), over its own
VM class, CorethVM (chain.c_chain_precompiles). An L1's schedule is over SubnetEVMVM, with Warp
when its genesis or upgrade.json has a `warpConfig`.
"""
