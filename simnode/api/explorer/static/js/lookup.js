// Where a key lives, asked of the node's JSON-RPC APIs (answers that are never an HTTP error, so
// a probe of the wrong chain costs no failed request): a tx on any chain, a block, a subnet, a chain.

import { rpc } from './api.js';
import { chains } from './chains.js';

export const HASH32 = /^0x[0-9a-fA-F]{64}$/;
export const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const CB58 = /^[1-9A-HJ-NP-Za-km-z]{40,60}$/;
export const NODE_ID = /^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/;
export const BECH32 = /^([XPC]-)?[a-z]{1,83}1[02-9ac-hj-np-z]{38,}$/;

const ok = (p) => p.catch(() => null);

// An EVM tx by hash: {chain, tx} (the RPC's tx object) on the first chain that has it.
export async function findEvmTx(hash, signal) {
  const evm = (await chains()).filter((c) => c.kind === 'evm');
  const found = await Promise.all(evm.map((c) => ok(rpc(c.rpcPath, 'eth_getTransactionByHash', [hash], signal))));
  const i = found.findIndex(Boolean);
  return i < 0 ? null : { chain: evm[i], tx: found[i] };
}

// A P-, X- or C-Chain (atomic) tx by ID: {chain, status}.
export async function findPrimaryTx(txId, signal) {
  const all = await chains();
  const byKey = Object.fromEntries(all.map((c) => [c.key, c]));
  const probes = [
    ['P', rpc('/ext/bc/P', 'platform.getTxStatus', { txID: txId }, signal)],
    ['X', rpc('/ext/bc/X', 'avm.getTxStatus', { txID: txId }, signal)],
    ['C', rpc('/ext/bc/C/avax', 'avax.getAtomicTxStatus', { txID: txId }, signal)],
  ];
  const answers = await Promise.all(probes.map(([, p]) => ok(p)));
  for (let i = 0; i < probes.length; i++) {
    const a = answers[i];
    if (a && a.status && a.status !== 'Unknown' && byKey[probes[i][0]]) return { chain: byKey[probes[i][0]], status: a.status };
  }
  return null;
}

// An EVM block by hash: {chain, block} on the first chain that has it.
export async function findEvmBlock(hash, signal) {
  const evm = (await chains()).filter((c) => c.kind === 'evm');
  const found = await Promise.all(evm.map((c) => ok(rpc(c.rpcPath, 'eth_getBlockByHash', [hash, false], signal))));
  const i = found.findIndex(Boolean);
  return i < 0 ? null : { chain: evm[i], block: found[i] };
}

// A P- or X-Chain block by ID: its chain.
export async function findPrimaryBlock(blockId, signal) {
  const all = await chains();
  const probes = all.filter((c) => c.kind !== 'evm');
  const method = { platform: 'platform.getBlock', avm: 'avm.getBlock' };
  const found = await Promise.all(probes.map((c) => ok(rpc(c.rpcPath, method[c.kind], { blockID: blockId, encoding: 'hex' }, signal))));
  const i = found.findIndex(Boolean);
  return i < 0 ? null : probes[i];
}

export async function isSubnet(subnetId, signal) {
  return Boolean(await ok(rpc('/ext/bc/P', 'platform.getSubnet', { subnetID: subnetId }, signal)));
}

export async function findChain(blockchainId) {
  return (await chains()).find((c) => c.blockchainId === blockchainId) || null;
}
