// The node's chains, from the Data API (/v1/chains: the C-Chain and every L1 EVM chain) and
// info.getBlockchainID (the X-Chain's ID), each with the key the explorer's URLs use: C, X, P or an
// L1's EVM chain ID.

import { get, rpc, PRIMARY } from './api.js';

export const P_CHAIN_ID = '11111111111111111111111111111111LpoYY';
const TTL_MS = 3000; // chains appear while the explorer is open (a scenario creating an L1)

let cached = null;
let cachedAt = 0;

export function chains() {
  if (!cached || Date.now() - cachedAt > TTL_MS) {
    cachedAt = Date.now();
    cached = load().catch((err) => { cached = null; throw err; });
  }
  return cached;
}

async function load() {
  const [evm, x] = await Promise.all([get('/v1/chains'), rpc('/ext/info', 'info.getBlockchainID', { alias: 'X' })]);
  const list = [
    { key: 'P', name: 'P-Chain', kind: 'platform', blockchainId: P_CHAIN_ID, dataChain: 'p-chain',
      rpcPath: '/ext/bc/P', heightMethod: 'platform.getHeight', subnetId: P_CHAIN_ID },
    { key: 'X', name: 'X-Chain', kind: 'avm', blockchainId: x.blockchainID, dataChain: 'x-chain',
      rpcPath: '/ext/bc/X', heightMethod: 'avm.getHeight', subnetId: P_CHAIN_ID },
  ];
  for (const c of evm.chains) {
    const isC = c.platformChainId && c.subnetId === P_CHAIN_ID;
    const path = isC ? '/ext/bc/C' : `/ext/bc/${c.platformChainId}`;
    list.push({
      key: isC ? 'C' : c.chainId, name: isC ? 'C-Chain' : c.chainName, kind: 'evm', evmChainId: c.chainId,
      blockchainId: c.platformChainId, subnetId: c.subnetId, dataChain: isC ? 'c-chain' : null,
      rpcPath: `${path}/rpc`, wsPath: `${path}/ws`, token: c.networkToken,
    });
  }
  return list;
}

// A chain by any of its names: C/X/P (or c-chain ...), an EVM chain ID, a blockchain ID.
export async function chainByRef(ref) {
  const all = await chains();
  const r = String(ref);
  const low = r.toLowerCase().replace(/-chain$/, '');
  return all.find((c) => c.key.toLowerCase() === low || c.evmChainId === r || c.blockchainId === r) || null;
}

// ------------------------------------------------------------------ CB58 <-> hex (bytes32 chain IDs in logs)

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

// The payload bytes of a CB58 string as 0x-hex (its 4-byte checksum dropped, not verified).
export function cb58ToHex(s) {
  let n = 0n;
  for (const ch of s) {
    const i = ALPHABET.indexOf(ch);
    if (i < 0) return null;
    n = n * 58n + BigInt(i);
  }
  let hex = n.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  let zeros = 0;
  while (s[zeros] === '1') zeros++;
  hex = '00'.repeat(zeros) + (n === 0n ? '' : hex);
  return '0x' + hex.slice(0, -8);
}

export async function chainByHex(hex32) {
  const h = String(hex32).toLowerCase();
  return (await chains()).find((c) => cb58ToHex(c.blockchainId) === h) || null;
}

// The primary network's chain names the Data API takes for {blockchainId}.
export const primaryPath = (dataChain) => `${PRIMARY}/blockchains/${dataChain}`;
