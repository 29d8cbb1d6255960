// viem 2 against a running simnode C-Chain, as a dApp or a wallet uses it. One run covers every
// check of the real-client matrix; tests/integration/test_cchain_viem_js.py asserts the values.
// The same phases and checks as ethers_matrix.mjs, through viem's own actions: local accounts
// (privateKeyToAccount) send, a JSON-RPC account (the node's) signs EIP-712, a test client funds.
// Usage: node viem_matrix.mjs <rpcURL> <wsURL> [automine|interval]  (prints one JSON line)
import {
  ContractFunctionRevertedError, createPublicClient, createTestClient, createWalletClient, decodeErrorResult, defineChain,
  encodeAbiParameters, fromRlp, getContractAddress, http, keccak256, numberToHex, pad, recoverTypedDataAddress, toBytes, verifyTypedData,
  webSocket,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { NODE_ACCOUNT, NODE_ACCOUNT_KEY, VAULT, printResult, runChecks, sleep, typedDocuments, walkProof } from './matrix_common.mjs';

const [rpcURL, wsURL, mode = 'automine'] = process.argv.slice(2);
if (!wsURL) throw new Error('usage: node viem_matrix.mjs <rpcURL> <wsURL> [automine|interval]');

// Every answered request, so a check can wait until a filter that viem installs in the background exists.
const answeredWaiters = [];
const pendingIds = new Map();
const transport = http(rpcURL, {
  onFetchRequest: (_, init) => {
    for (const q of [].concat(JSON.parse(init.body))) pendingIds.set(q.id, q.method);
  },
  onFetchResponse: async (response) => {
    for (const r of [].concat(await response.clone().json())) {
      const method = pendingIds.get(r.id);
      for (const w of answeredWaiters.filter((x) => x.method === method)) { answeredWaiters.splice(answeredWaiters.indexOf(w), 1); w.resolve(r.result); }
    }
  },
});
const answered = (method) => new Promise((resolve) => answeredWaiters.push({ method, resolve }));

const chainId = await createPublicClient({ transport: http(rpcURL) }).getChainId();
const chain = defineChain({
  id: chainId, name: 'simnode C-Chain', nativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: 18 },
  rpcUrls: { default: { http: [rpcURL], webSocket: [wsURL] } },
});
// viem polls every 4 s on a chain without a block time; a test waits for 1 s blocks
const pollingInterval = 100;
const client = createPublicClient({ chain, transport, pollingInterval });
const testClient = createTestClient({ chain, mode: 'anvil', transport: http(rpcURL) });
const keyOf = (label) => keccak256(toBytes(`simnode matrix viem ${label}`));
const walletOf = (label) => createWalletClient({ account: privateKeyToAccount(keyOf(label)), chain, transport: http(rpcURL), pollingInterval });
const addressOf = (label) => `0x${keccak256(toBytes(`simnode matrix viem recipient ${label}`)).slice(26)}`;
const W = Object.fromEntries(['owner', 'stranger', 'eip1559', 'legacy', 'explicit', 'pending', 'rapid', 'ws', 'mined']
  .map((name) => [name, walletOf(name)]));
const crowd = Array.from({ length: 10 }, (_, i) => walletOf(`crowd ${i}`));
const FUND = 100n * 10n ** 18n;
for (const w of [...Object.values(W), ...crowd]) await testClient.setBalance({ address: w.account.address, value: FUND });

const results = {};
const out = { chainId, accounts: Object.fromEntries(Object.entries(W).map(([k, w]) => [k, w.account.address])), results };
const abi = VAULT.abi;
const wait = (hash) => client.waitForTransactionReceipt({ hash, pollingInterval, timeout: 30000 });
// status and type as numbers, as the node and ethers give them ('success' = 1, 'eip1559' = 2, ...)
const TX_TYPES = { legacy: 0, eip2930: 1, eip1559: 2, eip4844: 3, eip7702: 4 };
const receiptOf = (r) => ({ status: r.status === 'success' ? 1 : 0, type: TX_TYPES[r.type], gasUsed: r.gasUsed, effectiveGasPrice: r.effectiveGasPrice,
  blockNumber: r.blockNumber, index: r.transactionIndex, hash: r.transactionHash, from: r.from, to: r.to, contractAddress: r.contractAddress });

// With --block-time, start right after a block: the sends that follow then meet a tx of theirs
// still pending (the case a pending nonce is for), not a block that happened to land between them.
async function freshBlock() {
  if (mode !== 'interval') return;
  const start = await client.getBlockNumber({ cacheTime: 0 });
  await until('the next block', async () => (await client.getBlockNumber({ cacheTime: 0 })) > start, 5000);
}

async function until(what, predicate, ms = 20000) {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

// What a viem dApp sees of a revert: the error it walks to, and the revert data decoded with the ABI.
function revertOf(err) {
  const reverted = err.walk?.((e) => e instanceof ContractFunctionRevertedError);
  const raw = err.walk?.((e) => typeof e?.data === 'string' && e.data.startsWith('0x'))?.data ?? null;
  let decoded = null;
  if (raw) { try { const d = decodeErrorResult({ abi, data: raw }); decoded = { name: d.errorName, args: (d.args ?? []).map(String) }; } catch { decoded = null; } }
  return {
    name: err.name, shortMessage: err.shortMessage,
    errorName: reverted?.data?.errorName ?? null, args: reverted?.data?.args ? reverted.data.args.map(String) : null,
    reason: reverted?.reason ?? null, data: raw, decoded,
  };
}

async function expectRevert(fn) {
  try { await fn(); } catch (err) { return revertOf(err); }
  throw new Error('did not revert');
}

// ---------------------------------------------------------------- phase 1
let vaultAddress;
await runChecks({
  async deployReadWrite() {
    const owner = W.owner;
    const hash = await owner.deployContract({ abi, bytecode: VAULT.bytecode, args: [42n] });
    const deployed = await wait(hash);
    const tx = await client.getTransaction({ hash });
    vaultAddress = deployed.contractAddress;
    const read = (functionName, args = []) => client.readContract({ address: vaultAddress, abi, functionName, args });
    const initial = await read('value');
    const ownerRead = await read('owner');
    const { request } = await client.simulateContract({ account: owner.account, address: vaultAddress, abi, functionName: 'set', args: [77n] });
    const set = await wait(await owner.writeContract(request));
    return {
      address: vaultAddress, expectedAddress: getContractAddress({ from: owner.account.address, nonce: BigInt(tx.nonce) }),
      deploy: receiptOf(deployed), initial, owner: ownerRead, set: receiptOf(set), valueAfter: await read('value'),
      slot0: await client.getStorageAt({ address: vaultAddress, slot: '0x0' }), code: await client.getCode({ address: vaultAddress }),
    };
  },
}, results);
if (!vaultAddress || results.deployReadWrite.error) { printResult(out); process.exit(0); }
const deployBlock = results.deployReadWrite.value.deploy.blockNumber;
const balance = (address, blockNumber) => client.getBalance({ address, ...(blockNumber === undefined ? {} : { blockNumber }) });

// ---------------------------------------------------------------- phase 2
async function transfer(w, to, value, fields) {
  const before = { from: await balance(w.account.address), to: await balance(to) };
  const hash = await w.sendTransaction({ to, value, ...fields });
  const r = await wait(hash);
  const tx = await client.getTransaction({ hash });
  const block = await client.getBlock({ blockNumber: r.blockNumber });
  return {
    value, tx: { type: TX_TYPES[tx.type], gasPrice: tx.gasPrice, maxFeePerGas: tx.maxFeePerGas ?? null, maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? null, gasLimit: tx.gas },
    receipt: receiptOf(r), baseFee: block.baseFeePerGas, before,
    after: { from: await balance(w.account.address, r.blockNumber), to: await balance(to, r.blockNumber) },
  };
}

await runChecks({
  async eip1559() {
    // explicit fees, with a tip above the node's suggestion (so eth_feeHistory's rewards differ by tx)
    const { baseFeePerGas } = await client.getBlock();
    return transfer(W.eip1559, addressOf('eip1559'), 1234567890123n, { maxPriorityFeePerGas: 3n, maxFeePerGas: baseFeePerGas * 2n + 3n });
  },

  async legacy() {
    const gasPrice = await client.getGasPrice();
    return { feeDataGasPrice: gasPrice, ...(await transfer(W.legacy, addressOf('legacy'), 987654321n, { type: 'legacy', gasPrice })) };
  },

  async explicitNonce() {
    const w = W.explicit;
    const address = w.account.address;
    const n = await client.getTransactionCount({ address });
    const later = await w.sendTransaction({ to: addressOf('explicit'), value: 2n, nonce: n + 1 }); // a gap: waits
    const pendingWithGap = await client.getTransactionCount({ address, blockTag: 'pending' });
    const first = await w.sendTransaction({ to: addressOf('explicit'), value: 1n, nonce: n });
    const [r1, r2] = await Promise.all([wait(first), wait(later)]);
    const nonces = await Promise.all([first, later].map(async (hash) => (await client.getTransaction({ hash })).nonce));
    return { n, nonces, pendingWithGap, receipts: [receiptOf(r1), receiptOf(r2)],
      final: await client.getTransactionCount({ address }), received: await balance(addressOf('explicit')) };
  },

  async pendingNonce() {
    await freshBlock();
    const w = W.pending;
    const address = w.account.address;
    const n = await client.getTransactionCount({ address });
    const t1 = await w.sendTransaction({ to: addressOf('pending'), value: 1n });
    const pendingAfterFirst = await client.getTransactionCount({ address, blockTag: 'pending' });
    const t2 = await w.sendTransaction({ to: addressOf('pending'), value: 2n });
    const [r1, r2] = await Promise.all([wait(t1), wait(t2)]);
    const nonces = await Promise.all([t1, t2].map(async (hash) => (await client.getTransaction({ hash })).nonce));
    return { n, nonces, pendingAfterFirst, receipts: [receiptOf(r1), receiptOf(r2)], final: await client.getTransactionCount({ address }) };
  },

  async customError() {
    const call = { address: vaultAddress, abi, functionName: 'set', args: [5n] };
    return {
      simulate: await expectRevert(() => client.simulateContract({ ...call, account: W.stranger.account })),
      estimateGas: await expectRevert(() => client.estimateContractGas({ ...call, account: W.stranger.account })),
      write: await expectRevert(() => W.stranger.writeContract(call)),
      stranger: W.stranger.account.address, owner: W.owner.account.address,
    };
  },

  async requireString() {
    const call = { address: vaultAddress, abi, functionName: 'set', args: [2_000_000n], account: W.owner.account };
    return { simulate: await expectRevert(() => client.simulateContract(call)),
      estimateGas: await expectRevert(() => client.estimateContractGas(call)) };
  },

  async minedRevert() {
    // a fixed gas limit skips the estimate, so the tx is mined and fails there
    const hash = await W.mined.writeContract({ address: vaultAddress, abi, functionName: 'set', args: [5n], gas: 100000n });
    const r = await wait(hash);
    const replay = await expectRevert(() => client.simulateContract({ address: vaultAddress, abi, functionName: 'set', args: [5n],
      account: W.mined.account, blockNumber: r.blockNumber }));
    return { receipt: receiptOf(r), replay, caller: W.mined.account.address };
  },

  async logsAndFilters() {
    const owner = W.owner;
    const filter = await client.createContractEventFilter({ address: vaultAddress, abi, eventName: 'ValueSet', fromBlock: deployBlock });
    const heard = [];
    const installed = answered('eth_newFilter');
    const unwatch = client.watchContractEvent({ address: vaultAddress, abi, eventName: 'ValueSet', pollingInterval,
      onLogs: (logs) => heard.push(...logs.map((l) => ({ args: Object.values(l.args).map(String), blockNumber: l.blockNumber }))) });
    await installed;
    const r1 = await wait(await owner.writeContract({ address: vaultAddress, abi, functionName: 'set', args: [100n] }));
    const r2 = await wait(await owner.writeContract({ address: vaultAddress, abi, functionName: 'set', args: [200n] }));
    await until('the ValueSet watcher', () => heard.length >= 2);
    unwatch();
    const decode = (l) => ({ name: l.eventName, args: Object.values(l.args).map(String), blockNumber: l.blockNumber });
    const changes = await client.getFilterChanges({ filter });
    const again = await client.getFilterChanges({ filter });
    const filterLogs = await client.getFilterLogs({ filter });
    const uninstalled = await client.uninstallFilter({ filter });
    const events = await client.getContractEvents({ address: vaultAddress, abi, eventName: 'ValueSet',
      args: { by: owner.account.address }, fromBlock: deployBlock, toBlock: r2.blockNumber });
    const byPrevious = await client.getContractEvents({ address: vaultAddress, abi, eventName: 'ValueSet',
      args: { previous: 100n }, fromBlock: deployBlock, toBlock: r2.blockNumber });
    return {
      blocks: [r1.blockNumber, r2.blockNumber], owner: owner.account.address, heard,
      changes: changes.map(decode), again: again.length, filterLogs: filterLogs.map(decode), uninstalled,
      queried: events.map(decode), byPrevious: byPrevious.map(decode),
    };
  },

  async websocket() {
    const ws = createPublicClient({ chain, transport: webSocket(wsURL) });
    const socket = await ws.transport.getRpcClient();
    const blocks = [];
    const pending = [];
    const deposits = [];
    const unwatch = [
      ws.watchBlocks({ onBlock: (b) => blocks.push(b.number) }),
      ws.watchPendingTransactions({ onTransactions: (hashes) => pending.push(...hashes) }),
      ws.watchContractEvent({ address: vaultAddress, abi, eventName: 'Deposited',
        onLogs: (logs) => deposits.push(...logs.map((l) => ({ ...l.args, blockNumber: l.blockNumber, tx: l.transactionHash }))) }),
    ];
    try {
      await until('three eth_subscribe answers', () => socket.subscriptions.size >= 3);
      const hash = await W.ws.writeContract({ address: vaultAddress, abi, functionName: 'deposit', value: 4242n });
      const r = await wait(hash);
      await until('the websocket notifications', () => deposits.some((d) => d.tx === hash) && blocks.includes(r.blockNumber) && pending.includes(hash));
      return { receipt: receiptOf(r), depositor: W.ws.account.address, deposit: deposits.find((d) => d.tx === hash),
        blockHeard: blocks.includes(r.blockNumber), pendingHeard: pending.includes(hash), subscriptions: socket.subscriptions.size };
    } finally {
      for (const stop of unwatch) stop();
      socket.close();
    }
  },

  async eip712() {
    const node = createWalletClient({ account: NODE_ACCOUNT, chain, transport: http(rpcURL) }); // a JSON-RPC account
    const local = privateKeyToAccount(NODE_ACCOUNT_KEY);
    const out = {};
    for (const [name, doc] of Object.entries(typedDocuments(chainId, vaultAddress))) {
      const signature = await node.signTypedData(doc);
      out[name] = { signature, local: await local.signTypedData(doc), recovered: await recoverTypedDataAddress({ ...doc, signature }),
        verified: await verifyTypedData({ address: NODE_ACCOUNT, ...doc, signature }) };
    }
    return out;
  },

  async rapid20() {
    await freshBlock();
    const w = W.rapid;
    const to = addressOf('rapid');
    const n = await client.getTransactionCount({ address: w.account.address });
    const hashes = [];
    for (let i = 1; i <= 20; i++) hashes.push(await w.sendTransaction({ to, value: BigInt(i) }));
    const receipts = await Promise.all(hashes.map(wait));
    const nonces = await Promise.all(hashes.map(async (hash) => (await client.getTransaction({ hash })).nonce));
    return { n, nonces, receipts: receipts.map(receiptOf), received: await balance(to),
      final: await client.getTransactionCount({ address: w.account.address }) };
  },

  async concurrent10() {
    const before = await Promise.all(crowd.map((w) => balance(w.account.address)));
    const hashes = await Promise.all(crowd.map((w, i) => w.writeContract({ address: vaultAddress, abi, functionName: 'deposit', value: BigInt((i + 1) * 1000) })));
    const receipts = await Promise.all(hashes.map(wait));
    return Promise.all(crowd.map(async (w, i) => ({
      address: w.account.address, value: BigInt((i + 1) * 1000), nonce: (await client.getTransaction({ hash: hashes[i] })).nonce,
      receipt: receiptOf(receipts[i]), before: before[i], after: await balance(w.account.address, receipts[i].blockNumber),
      deposit: await client.readContract({ address: vaultAddress, abi, functionName: 'deposits', args: [w.account.address] }),
    })));
  },
}, results);

// ---------------------------------------------------------------- phase 3
await runChecks({
  async feeHistory() {
    const history = await client.getFeeHistory({ blockCount: 5, rewardPercentiles: [10, 50, 90] });
    const blocks = [];
    for (let n = history.oldestBlock; n < history.oldestBlock + BigInt(history.gasUsedRatio.length); n++) {
      const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
      const receipts = await client.request({ method: 'eth_getBlockReceipts', params: [numberToHex(n)] });
      blocks.push({
        number: n, baseFeePerGas: block.baseFeePerGas, gasUsed: block.gasUsed, gasLimit: block.gasLimit,
        txs: block.transactions.map((t, i) => ({ type: t.type, gasPrice: t.gasPrice, maxFeePerGas: t.maxFeePerGas ?? null,
          maxPriorityFeePerGas: t.maxPriorityFeePerGas ?? null, gasUsed: BigInt(receipts[i].gasUsed) })),
      });
    }
    return { history, blocks, latest: await client.getBlockNumber() };
  },

  async getProof() {
    const block = await client.getBlock();
    const blockNumber = block.number;
    const depositor = crowd[3].account.address;
    const depositSlot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [depositor, 2n]));
    const slots = [pad('0x0'), pad('0x1'), depositSlot, pad('0x9')];
    const lib = { keccak256, decodeRlp: (hex) => fromRlp(hex, 'hex') };
    const account = async (address, storageKeys) => {
      const proof = await client.getProof({ address, storageKeys, blockNumber });
      const leaf = walkProof(block.stateRoot, keccak256(address), proof.accountProof, lib);
      const walked = leaf === null ? null : lib.decodeRlp(leaf).map((v) => (v === '0x' ? '0x0' : v));
      const storage = proof.storageProof.map((sp) => {
        const value = walkProof(proof.storageHash, keccak256(pad(sp.key)), sp.proof, lib);
        return { key: sp.key, reported: sp.value, walked: value === null ? '0x0' : lib.decodeRlp(value) };
      });
      return {
        reported: { balance: proof.balance, nonce: proof.nonce, storageHash: proof.storageHash, codeHash: proof.codeHash },
        walked: walked && { nonce: walked[0], balance: walked[1], storageHash: walked[2], codeHash: walked[3] },
        direct: { balance: await balance(address, blockNumber), nonce: await client.getTransactionCount({ address, blockNumber }),
          codeHash: keccak256((await client.getCode({ address, blockNumber })) ?? '0x'),
          storage: await Promise.all(storageKeys.map((slot) => client.getStorageAt({ address, slot, blockNumber }))) },
        storage, nodes: proof.accountProof.length,
      };
    };
    return { block: blockNumber, stateRoot: block.stateRoot, depositor, vault: await account(vaultAddress, slots),
      owner: await account(W.owner.account.address, []), absent: await account(addressOf('never used'), []),
      vaultBalance: await balance(vaultAddress, blockNumber) };
  },
}, results);

printResult(out);
process.exit(0);
