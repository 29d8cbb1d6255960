// ethers 6 against a running simnode C-Chain, as a dApp or a wallet uses it. One run covers every
// check of the real-client matrix; tests/integration/test_cchain_ethers_js.py asserts the values.
//   phase 1  deploy Vault(42), read it, write it (the contract the other checks use)
//   phase 2  at once, each with its own funded account: EIP-1559 and legacy transfers, an explicit
//            nonce with a gap, the pending nonce, custom-error and require-string reverts (estimate,
//            static call, mined), logs and filters over HTTP, websocket subscriptions, EIP-712
//            through the node's account, 20 rapid sequential sends, concurrent sends from 10 accounts
//   phase 3  eth_feeHistory over the blocks made, eth_getProof walked to a block's state root
// Accounts are funded with anvil_setBalance, so no check depends on another's sends.
// Usage: node ethers_matrix.mjs <rpcURL> <wsURL> [automine|interval]  (prints one JSON line)
import {
  Contract, ContractFactory, Interface, JsonRpcProvider, WebSocketProvider, Wallet, decodeRlp,
  getAddress, getCreateAddress, id, keccak256, toBeHex, toQuantity, toUtf8Bytes, verifyTypedData, zeroPadValue,
} from 'ethers';
import { NODE_ACCOUNT, NODE_ACCOUNT_KEY, VAULT, printResult, runChecks, sleep, typedDocuments, walkProof } from './matrix_common.mjs';

const [rpcURL, wsURL, mode = 'automine'] = process.argv.slice(2);
if (!wsURL) throw new Error('usage: node ethers_matrix.mjs <rpcURL> <wsURL> [automine|interval]');
const VAULT_IFACE = new Interface(VAULT.abi);

// ethers polls every 4 s by default; a test waits for 1 s blocks, so it polls faster. ethers also
// answers a repeated request from a 250 ms cache, which hands the same pending nonce to two quick
// sends of one wallet (on Anvil too): off, as a script sending back to back sets it.
const provider = new JsonRpcProvider(rpcURL, undefined, { pollingInterval: 100, cacheTimeout: -1 });
const { chainId } = await provider.getNetwork();
const FUND = 100n * 10n ** 18n;
const wallet = (label) => new Wallet(keccak256(toUtf8Bytes(`simnode matrix ethers ${label}`)), provider);
const addressOf = (label) => getAddress('0x' + keccak256(toUtf8Bytes(`simnode matrix ethers recipient ${label}`)).slice(26));
const W = Object.fromEntries(['owner', 'stranger', 'eip1559', 'legacy', 'explicit', 'pending', 'rapid', 'ws', 'mined']
  .map((name) => [name, wallet(name)]));
const crowd = Array.from({ length: 10 }, (_, i) => wallet(`crowd ${i}`));
for (const w of [...Object.values(W), ...crowd]) await provider.send('anvil_setBalance', [w.address, toQuantity(FUND)]);

const results = {};
const out = { chainId, accounts: Object.fromEntries(Object.entries(W).map(([k, w]) => [k, w.address])), results };
const receiptOf = (r) => ({ status: r.status, type: r.type, gasUsed: r.gasUsed, effectiveGasPrice: r.gasPrice,
  blockNumber: r.blockNumber, index: r.index, hash: r.hash, from: r.from, to: r.to, contractAddress: r.contractAddress });

// With --block-time, start right after a block: the sends that follow then meet a tx of theirs
// still pending (the case a pending nonce is for), not a block that happened to land between them.
async function freshBlock() {
  if (mode !== 'interval') return;
  const start = await provider.getBlockNumber();
  await until('the next block', async () => (await provider.getBlockNumber()) > start, 5000);
}

async function until(what, predicate, ms = 20000) {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

// Resolves when a request of `method` sent through `p` has its answer (a subscription or filter
// that ethers installs in the background is then in place).
function answered(p, method) {
  return new Promise((resolve) => {
    const ids = new Set();
    const listener = (ev) => {
      if (ev.action === 'sendRpcPayload') for (const q of [].concat(ev.payload)) if (q.method === method) ids.add(q.id);
      if (ev.action === 'receiveRpcResult') {
        for (const r of [].concat(ev.result)) if (ids.has(r.id)) { p.off('debug', listener); resolve(r.result); return; }
      }
    };
    p.on('debug', listener);
  });
}

// ethers decodes a revert itself on a contract call (err.revert); an estimate or a send leaves the
// revert data for the dApp to decode with the contract's interface, as here (parsed).
function revertOf(err) {
  const parsed = err.data ? VAULT_IFACE.parseError(err.data) : null;
  return { code: err.code, reason: err.reason ?? null, name: err.revert?.name ?? null,
    args: err.revert ? [...err.revert.args].map(String) : null, data: err.data ?? null,
    parsed: parsed && { name: parsed.name, args: [...parsed.args].map(String) } };
}

async function expectRevert(fn) {
  try { await fn(); } catch (err) { return revertOf(err); }
  throw new Error('did not revert');
}

// ---------------------------------------------------------------- phase 1
let vault;
await runChecks({
  async deployReadWrite() {
    const factory = new ContractFactory(VAULT.abi, VAULT.bytecode, W.owner);
    vault = await factory.deploy(42n);
    const deployTx = vault.deploymentTransaction();
    const deployed = await deployTx.wait();
    const address = await vault.getAddress();
    const initial = await vault.value();
    const owner = await vault.owner();
    const set = await (await vault.set(77n)).wait();
    return {
      address, expectedAddress: getCreateAddress({ from: W.owner.address, nonce: deployTx.nonce }),
      deploy: receiptOf(deployed), initial, owner, set: receiptOf(set), valueAfter: await vault.value(),
      slot0: await provider.getStorage(address, 0), code: await provider.getCode(address),
    };
  },
}, results);
if (!vault || results.deployReadWrite.error) { printResult(out); process.exit(0); }
const vaultAddress = await vault.getAddress();
const deployBlock = results.deployReadWrite.value.deploy.blockNumber;

// ---------------------------------------------------------------- phase 2
async function transfer(w, to, value, overrides) {
  const before = { from: await provider.getBalance(w.address), to: await provider.getBalance(to) };
  const tx = await w.sendTransaction({ to, value, ...overrides });
  const r = await tx.wait();
  const block = await provider.getBlock(r.blockNumber);
  return {
    value, tx: { type: tx.type, gasPrice: tx.gasPrice, maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas, gasLimit: tx.gasLimit },
    receipt: receiptOf(r), baseFee: block.baseFeePerGas, before,
    after: { from: await provider.getBalance(w.address, r.blockNumber), to: await provider.getBalance(to, r.blockNumber) },
  };
}

await runChecks({
  async eip1559() {
    // explicit fees, with a tip above the node's suggestion (so eth_feeHistory's rewards differ by tx)
    const { baseFeePerGas } = await provider.getBlock('latest');
    return transfer(W.eip1559, addressOf('eip1559'), 1234567890123n,
      { type: 2, maxPriorityFeePerGas: 3n, maxFeePerGas: baseFeePerGas * 2n + 3n });
  },

  async legacy() {
    const { gasPrice } = await provider.getFeeData();
    return { feeDataGasPrice: gasPrice, ...(await transfer(W.legacy, addressOf('legacy'), 987654321n, { type: 0, gasPrice })) };
  },

  async explicitNonce() {
    const w = W.explicit;
    const n = await provider.getTransactionCount(w.address, 'latest');
    const later = await w.sendTransaction({ to: addressOf('explicit'), value: 2n, nonce: n + 1 }); // a gap: waits
    const pendingWithGap = await provider.getTransactionCount(w.address, 'pending');
    const first = await w.sendTransaction({ to: addressOf('explicit'), value: 1n, nonce: n });
    const [r1, r2] = await Promise.all([first.wait(), later.wait()]);
    return { n, nonces: [first.nonce, later.nonce], pendingWithGap, receipts: [receiptOf(r1), receiptOf(r2)],
      final: await provider.getTransactionCount(w.address, 'latest'), received: await provider.getBalance(addressOf('explicit')) };
  },

  async pendingNonce() {
    await freshBlock();
    const w = W.pending;
    const n = await provider.getTransactionCount(w.address, 'latest');
    const t1 = await w.sendTransaction({ to: addressOf('pending'), value: 1n });
    const pendingAfterFirst = await provider.getTransactionCount(w.address, 'pending');
    const t2 = await w.sendTransaction({ to: addressOf('pending'), value: 2n });
    const [r1, r2] = await Promise.all([t1.wait(), t2.wait()]);
    return { n, nonces: [t1.nonce, t2.nonce], pendingAfterFirst, receipts: [receiptOf(r1), receiptOf(r2)],
      final: await provider.getTransactionCount(w.address, 'latest') };
  },

  async customError() {
    const as = vault.connect(W.stranger);
    return {
      staticCall: await expectRevert(() => as.set.staticCall(5n)),
      estimateGas: await expectRevert(() => as.set.estimateGas(5n)),
      send: await expectRevert(() => as.set(5n)),
      stranger: W.stranger.address, owner: W.owner.address,
    };
  },

  async requireString() {
    const as = vault.connect(W.owner);
    return { staticCall: await expectRevert(() => as.set.staticCall(2_000_000n)),
      estimateGas: await expectRevert(() => as.set.estimateGas(2_000_000n)) };
  },

  async minedRevert() {
    // a fixed gas limit skips the estimate, so the tx is mined and fails there
    const tx = await vault.connect(W.mined).set(5n, { gasLimit: 100000n });
    let waited;
    try { await tx.wait(); waited = { threw: false }; } catch (err) { waited = { code: err.code, receipt: err.receipt ? receiptOf(err.receipt) : null }; }
    const r = await provider.getTransactionReceipt(tx.hash);
    const replay = await expectRevert(() => vault.connect(W.mined).set.staticCall(5n, { blockTag: r.blockNumber }));
    return { waited, receipt: receiptOf(r), replay, caller: W.mined.address };
  },

  async logsAndFilters() {
    const topic = id('ValueSet(address,uint256,uint256)');
    const filterId = await provider.send('eth_newFilter', [{ address: vaultAddress, topics: [topic], fromBlock: toQuantity(deployBlock) }]);
    const heard = [];
    const ready = answered(provider, 'eth_newFilter');
    await vault.on('ValueSet', (by, previous, next, ev) => heard.push({ args: [by, previous, next].map(String), blockNumber: ev.log.blockNumber }));
    await ready;
    const r1 = await (await vault.connect(W.owner).set(100n)).wait();
    const r2 = await (await vault.connect(W.owner).set(200n)).wait();
    await until('the ValueSet listener', () => heard.length >= 2);
    await vault.off('ValueSet');
    const changes = await provider.send('eth_getFilterChanges', [filterId]);
    const again = await provider.send('eth_getFilterChanges', [filterId]);
    const filterLogs = await provider.send('eth_getFilterLogs', [filterId]);
    const uninstalled = await provider.send('eth_uninstallFilter', [filterId]);
    const queried = await vault.queryFilter(vault.filters.ValueSet(W.owner.address), deployBlock, r2.blockNumber);
    const byPrevious = await provider.getLogs({ address: vaultAddress, fromBlock: deployBlock, toBlock: r2.blockNumber,
      topics: [topic, null, zeroPadValue(toBeHex(100n), 32)] });
    const decode = (lg) => { const p = vault.interface.parseLog(lg); return { name: p.name, args: [...p.args].map(String), blockNumber: Number(lg.blockNumber) }; };
    return {
      blocks: [r1.blockNumber, r2.blockNumber], owner: W.owner.address, heard,
      changes: changes.map(decode), again: again.length, filterLogs: filterLogs.map(decode), uninstalled,
      queried: queried.map((e) => ({ name: e.fragment.name, args: [...e.args].map(String), blockNumber: e.blockNumber })),
      byPrevious: byPrevious.map(decode),
    };
  },

  async websocket() {
    const ws = new WebSocketProvider(wsURL);
    try {
      const blocks = [];
      const pending = [];
      const deposits = [];
      const subscribed = answered(ws, 'eth_subscribe');
      await ws.on('block', (n) => blocks.push(n));
      await subscribed;
      const pendingReady = answered(ws, 'eth_subscribe');
      await ws.on('pending', (h) => pending.push(h));
      await pendingReady;
      const logsReady = answered(ws, 'eth_subscribe');
      const wsVault = new Contract(vaultAddress, VAULT.abi, ws);
      await wsVault.on('Deposited', (from, amount, ev) => deposits.push({ from, amount, blockNumber: ev.log.blockNumber, tx: ev.log.transactionHash }));
      await logsReady;
      const tx = await vault.connect(W.ws).deposit({ value: 4242n });
      const r = await tx.wait();
      await until('the websocket notifications', () => deposits.some((d) => d.tx === tx.hash) && blocks.includes(r.blockNumber) && pending.includes(tx.hash));
      return { receipt: receiptOf(r), depositor: W.ws.address, deposit: deposits.find((d) => d.tx === tx.hash),
        blockHeard: blocks.includes(r.blockNumber), pendingHeard: pending.includes(tx.hash) };
    } finally {
      await ws.destroy();
    }
  },

  async eip712() {
    const signer = await provider.getSigner(NODE_ACCOUNT);
    const local = new Wallet(NODE_ACCOUNT_KEY);
    const docs = typedDocuments(chainId, vaultAddress);
    const out = {};
    for (const [name, doc] of Object.entries(docs)) {
      const signature = await signer.signTypedData(doc.domain, doc.types, doc.message);
      const recovered = verifyTypedData(doc.domain, doc.types, doc.message, signature);
      out[name] = { signature, local: await local.signTypedData(doc.domain, doc.types, doc.message),
        recovered, verified: recovered === NODE_ACCOUNT };
    }
    return out;
  },

  async rapid20() {
    await freshBlock();
    const w = W.rapid;
    const to = addressOf('rapid');
    const n = await provider.getTransactionCount(w.address, 'latest');
    const sent = [];
    for (let i = 1; i <= 20; i++) sent.push(await w.sendTransaction({ to, value: BigInt(i) }));
    const receipts = await Promise.all(sent.map((t) => t.wait()));
    return { n, nonces: sent.map((t) => t.nonce), receipts: receipts.map(receiptOf),
      received: await provider.getBalance(to), final: await provider.getTransactionCount(w.address, 'latest') };
  },

  async concurrent10() {
    const before = await Promise.all(crowd.map((w) => provider.getBalance(w.address)));
    const sent = await Promise.all(crowd.map((w, i) => vault.connect(w).deposit({ value: BigInt((i + 1) * 1000) })));
    const receipts = await Promise.all(sent.map((t) => t.wait()));
    return Promise.all(crowd.map(async (w, i) => ({
      address: w.address, value: BigInt((i + 1) * 1000), nonce: sent[i].nonce, receipt: receiptOf(receipts[i]), before: before[i],
      after: await provider.getBalance(w.address, receipts[i].blockNumber), deposit: await vault.deposits(w.address),
    })));
  },
}, results);

// ---------------------------------------------------------------- phase 3
await runChecks({
  async feeHistory() {
    const history = await provider.send('eth_feeHistory', ['0x5', 'latest', [10, 50, 90]]);
    const blocks = [];
    const oldest = Number(history.oldestBlock);
    for (let n = oldest; n < oldest + history.gasUsedRatio.length; n++) {
      const block = await provider.getBlock(n, true);
      const receipts = await provider.send('eth_getBlockReceipts', [toQuantity(n)]);
      blocks.push({
        number: n, baseFeePerGas: block.baseFeePerGas, gasUsed: block.gasUsed, gasLimit: block.gasLimit,
        txs: block.prefetchedTransactions.map((t, i) => ({ type: t.type, gasPrice: t.gasPrice, maxFeePerGas: t.maxFeePerGas,
          maxPriorityFeePerGas: t.maxPriorityFeePerGas, gasUsed: BigInt(receipts[i].gasUsed) })),
      });
    }
    return { history, blocks, latest: await provider.getBlockNumber() };
  },

  async getProof() {
    const block = await provider.getBlock('latest');
    const tag = toQuantity(block.number);
    const depositor = crowd[3].address;
    const depositSlot = keccak256(zeroPadValue(depositor, 32) + '0'.repeat(63) + '2');
    const slots = [zeroPadValue('0x00', 32), zeroPadValue('0x01', 32), depositSlot, zeroPadValue('0x09', 32)];
    const absent = addressOf('never used');
    const lib = { keccak256, decodeRlp };
    const account = async (address, keys) => {
      const proof = await provider.send('eth_getProof', [address, keys, tag]);
      const leaf = walkProof(block.stateRoot, keccak256(address), proof.accountProof, lib);
      const walked = leaf === null ? null : decodeRlp(leaf).map((v) => (v === '0x' ? '0x0' : v));
      const storage = proof.storageProof.map((sp) => {
        const value = walkProof(proof.storageHash, keccak256(zeroPadValue(sp.key, 32)), sp.proof, lib);
        return { key: sp.key, reported: sp.value, walked: value === null ? '0x0' : decodeRlp(value) };
      });
      return {
        reported: { balance: proof.balance, nonce: proof.nonce, storageHash: proof.storageHash, codeHash: proof.codeHash },
        walked: walked && { nonce: walked[0], balance: walked[1], storageHash: walked[2], codeHash: walked[3] },
        direct: { balance: await provider.getBalance(address, block.number), nonce: await provider.getTransactionCount(address, block.number),
          codeHash: keccak256(await provider.getCode(address, block.number)),
          storage: await Promise.all(keys.map((k) => provider.getStorage(address, k, block.number))) },
        storage, nodes: proof.accountProof.length,
      };
    };
    return { block: block.number, stateRoot: block.stateRoot, depositor, vault: await account(vaultAddress, slots),
      owner: await account(W.owner.address, []), absent: await account(absent, []), vaultBalance: await provider.getBalance(vaultAddress, block.number) };
  },
}, results);

provider.destroy();
printResult(out);
process.exit(0);
