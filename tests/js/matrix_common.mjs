// Shared by ethers_matrix.mjs and viem_matrix.mjs: the contracts, the EIP-712 documents, a
// Merkle-Patricia proof walker (given the client's own keccak256 and RLP decoder) and the check runner.
// Each check records the values it saw; tests/integration/test_cchain_{ethers,viem}_js.py asserts them.
import { readFileSync } from 'node:fs';

const artifact = (name) => JSON.parse(readFileSync(new URL(`../foundry/artifacts/${name}.json`, import.meta.url), 'utf8'));
export const VAULT = artifact('Vault');
export const READER = artifact('Reader');

// Anvil's first mnemonic account: simnode lists and unlocks it (eth_accounts) as Anvil does; its key is
// public, so a node signature can be compared with one made locally.
export const NODE_ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const NODE_ACCOUNT_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

// Three EIP-712 documents: an ERC-2612 Permit, a nested struct (EIP-712's own Mail example) and
// arrays (of structs, of uint256, of bytes32) with dynamic bytes.
export function typedDocuments(chainId, verifyingContract) {
  const domain = { name: 'Simnode Matrix', version: '1', chainId, verifyingContract };
  const alice = { name: 'Alice', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' };
  const bob = { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' };
  const person = [{ name: 'name', type: 'string' }, { name: 'wallet', type: 'address' }];
  return {
    permit: {
      domain,
      types: {
        Permit: [
          { name: 'owner', type: 'address' }, { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: NODE_ACCOUNT, spender: bob.wallet, value: 10n ** 18n, nonce: 0n, deadline: 1893456000n },
    },
    nested: {
      domain,
      types: { Person: person, Mail: [{ name: 'from', type: 'Person' }, { name: 'to', type: 'Person' }, { name: 'contents', type: 'string' }] },
      primaryType: 'Mail',
      message: { from: alice, to: bob, contents: 'Hello, Bob!' },
    },
    arrays: {
      domain,
      types: {
        Person: person,
        Batch: [
          { name: 'owner', type: 'Person' }, { name: 'members', type: 'Person[]' }, { name: 'amounts', type: 'uint256[]' },
          { name: 'tags', type: 'bytes32[2]' }, { name: 'memo', type: 'bytes' },
        ],
      },
      primaryType: 'Batch',
      message: {
        owner: alice, members: [alice, bob], amounts: [1n, 2n ** 200n, 0n],
        tags: ['0x' + '11'.repeat(32), '0x' + 'ab'.repeat(32)], memo: '0xdeadbeef',
      },
    },
  };
}

// Walks a Merkle-Patricia proof (eth_getProof's accountProof or a storageProof) from `root` along
// keccak256(key): every listed node must hash to the reference its parent holds (nodes under 32 bytes
// are embedded in their parent, as geth's proofs leave them). Returns the leaf's value (hex RLP) or
// null where the proof shows the key absent; throws where the proof does not hold together.
export function walkProof(root, hashedKey, proof, { keccak256, decodeRlp }) {
  const nibbles = [...hashedKey.slice(2).toLowerCase()].map((c) => parseInt(c, 16));
  const toNibbles = (hex) => [...hex.slice(2)].map((c) => parseInt(c, 16));
  let pos = 0;
  let used = 0;
  let ref = root.toLowerCase();
  for (;;) {
    let node;
    if (typeof ref === 'string') {
      if (used >= proof.length) throw new Error(`proof ends at depth ${used}: node ${ref} is missing`);
      const raw = proof[used++];
      if (keccak256(raw).toLowerCase() !== ref) throw new Error(`proof node ${used - 1} does not hash to ${ref}`);
      node = decodeRlp(raw);
    } else {
      node = ref;
    }
    let result;
    if (node.length === 17) {
      if (pos === nibbles.length) {
        result = node[16] === '0x' ? null : node[16];
      } else {
        const child = node[nibbles[pos++]];
        if (child === '0x') result = null;
        else { ref = child; continue; }
      }
    } else if (node.length === 2) {
      const encoded = toNibbles(node[0]);
      const leaf = encoded[0] >= 2;
      const part = encoded.slice(encoded[0] % 2 === 1 ? 1 : 2);
      const here = nibbles.slice(pos, pos + part.length);
      const matches = here.length === part.length && here.every((n, i) => n === part[i]);
      if (leaf) {
        result = matches && pos + part.length === nibbles.length ? node[1] : null;
      } else if (!matches) {
        result = null;
      } else {
        pos += part.length;
        ref = node[1];
        continue;
      }
    } else {
      throw new Error(`a trie node has ${node.length} items`);
    }
    if (used !== proof.length) throw new Error(`${proof.length - used} proof node(s) past the end of the path`);
    return result;
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms); }),
  ]);
}

// Runs named checks; each records {value} or {error} so one failing check does not hide the others.
export async function runChecks(checks, results, timeoutMs = 60000) {
  await Promise.all(Object.entries(checks).map(async ([name, fn]) => {
    const started = Date.now();
    try {
      results[name] = { value: await withTimeout(fn(), timeoutMs, name), ms: Date.now() - started };
    } catch (err) {
      results[name] = { error: describeError(err), ms: Date.now() - started };
    }
  }));
}

function describeError(err) {
  const out = { message: String(err?.shortMessage ?? err?.message ?? err) };
  for (const key of ['code', 'name', 'reason', 'details']) if (err?.[key] !== undefined) out[key] = String(err[key]);
  // the node's own JSON-RPC error, where ethers keeps it
  const rpcError = err?.info?.error ?? err?.error;
  if (rpcError) out.rpcError = rpcError;
  if (err?.stack) out.stack = err.stack.split('\n').slice(0, 4).join('\n');
  return out;
}

// JSON with bigints as decimal strings (the Python side reads them with int()).
export function printResult(result) {
  console.log(JSON.stringify(result, (_, v) => (typeof v === 'bigint' ? v.toString() : v)));
}
