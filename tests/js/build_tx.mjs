// Builds and signs ONE tx with avalanchejs 5.2.0 from what the node at <baseURL> tells (UTXOs, fee
// state, chain time, base fee), without issuing it: the differential check (simnode/testing/
// diff_p_txs.py) sends the same bytes to a real AvalancheGo node and to simnode.
// Usage: node build_tx.mjs <baseURL> <kind> '<json args>'
// Prints one JSON line: {chain, tx (hex with checksum, as issueTx takes it), txID, ...details}.
// Keys: ewoq (funds everything, owns subnets) and K1 = sha256("simnode-vector-key-1") (receives).
import {
  avm, pvm, evm, pvmSerial, Context, utils, addTxSignatures, secp256k1, bls, L1Validator, PChainOwner,
  TransferableOutput,
} from '@avalabs/avalanchejs';
import { bls12_381 } from '@noble/curves/bls12-381';
import { createHash } from 'node:crypto';

const [baseURL, kind, argText] = process.argv.slice(2);
if (!baseURL || !kind) throw new Error('usage: node build_tx.mjs <baseURL> <kind> [json args]');
const args = JSON.parse(argText || '{}');

const EWOQ_KEY = utils.hexToBuffer('0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027');
const K1_KEY = new Uint8Array(createHash('sha256').update('simnode-vector-key-1').digest());
const AVAX = 1_000_000_000n;
const DAY = 86400n;
const PRIMARY = '11111111111111111111111111111111LpoYY';
const SUBNET_EVM = 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy';
const BLS_R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

const sha256 = (s) => new Uint8Array(createHash('sha256').update(s).digest());
const hex = (b) => utils.bufferToHex(b);
const nodeIdOf = (seed) => `NodeID-${utils.base58check.encode(sha256(seed).slice(0, 20))}`;
function blsKeyOf(seed) {
  const sk = BigInt(hex(sha256(seed))) % BLS_R;
  const skBytes = utils.hexToBuffer(sk.toString(16).padStart(64, '0'));
  const publicKey = bls12_381.getPublicKey(skBytes);
  const pop = bls.signProofOfPossession(publicKey, bls.secretKeyFromBytes(skBytes));
  return { publicKey, pop };
}

const context = await Context.getContextFromURI(baseURL);
const xapi = new avm.AVMApi(baseURL);
const papi = new pvm.PVMApi(baseURL);
const capi = new evm.EVMApi(baseURL);
const addrOf = (key) => secp256k1.publicKeyBytesToAddress(secp256k1.getPublicKey(key));
const ewoq = addrOf(EWOQ_KEY);
const k1 = addrOf(K1_KEY);
const fmt = (chain, bytes) => utils.format(chain, context.hrp, bytes);
const chainIdOf = (alias) => ({ X: context.xBlockchainID, P: context.pBlockchainID, C: context.cBlockchainID })[alias];
const k1Eth = utils.hexToBuffer('0x' + Buffer.from(secp256k1.publicKeyToEthAddress(secp256k1.getPublicKey(K1_KEY))).toString('hex'));

async function rpc(path, method, params) {
  const res = await fetch(`${baseURL}${path}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

// The fee state as of now: getFeeState reports it as of the last block, and a network's first block
// starts at capacity 0 (an exported network: the first P tx would not fit); the block that takes the
// tx refills it by maxPerSecond for each second since, up to maxCapacity, as AvalancheGo does.
async function feeStateNow() {
  const state = await papi.getFeeState();
  const config = await rpc('/ext/bc/P', 'platform.getFeeConfig', {});
  const since = BigInt(Math.max(0, Math.floor((Date.now() - Date.parse(state.timestamp)) / 1000)));
  const capacity = state.capacity + since * BigInt(config.maxPerSecond);
  return { ...state, capacity: capacity < BigInt(config.maxCapacity) ? capacity : BigInt(config.maxCapacity) };
}

async function pCommon(fromKey) {
  const from = addrOf(fromKey);
  return {
    feeState: await feeStateNow(),
    fromAddressesBytes: [from],
    utxos: (await papi.getUTXOs({ addresses: [fmt('P', from)] })).utxos,
  };
}

async function chainNow() {
  const { timestamp } = await papi.getTimestamp();
  return BigInt(Math.floor(Date.parse(timestamp) / 1000));
}

async function baseFeeNAVAX() {
  const wei = await capi.getBaseFee();
  return (wei + AVAX - 1n) / AVAX;
}

// The avalanchejs examples' helper: one signature at index 0 of every credential (subnetAuth too).
async function signAll(unsignedTx, key) {
  const signature = await secp256k1.sign(unsignedTx.toBytes(), key);
  for (let i = 0; i < unsignedTx.getCredentials().length; i++) unsignedTx.addSignatureAt(signature, i, 0);
}

const builders = {
  'p-base': async () => ['P', pvm.e.newBaseTx({ ...(await pCommon(EWOQ_KEY)),
    outputs: [TransferableOutput.fromNative(context.avaxAssetID, BigInt(args.amount ?? AVAX), [k1])] }, context)],
  'p-subnet': async () => ['P', pvm.e.newCreateSubnetTx({ ...(await pCommon(EWOQ_KEY)),
    subnetOwners: [ewoq], threshold: 1 }, context)],
  'p-chain': async () => ['P', pvm.e.newCreateChainTx({ ...(await pCommon(EWOQ_KEY)),
    subnetId: args.subnetID, chainName: args.name ?? 'diffSubnetEVM', vmId: SUBNET_EVM, fxIds: [],
    genesisData: args.genesis, subnetAuth: [0] }, context), 'all'],
  'p-validator': async () => {
    const now = await chainNow();
    const b = blsKeyOf(args.blsSeed);
    return ['P', pvm.e.newAddPermissionlessValidatorTx({ ...(await pCommon(EWOQ_KEY)),
      nodeId: nodeIdOf(args.nodeSeed), subnetId: PRIMARY, start: now, end: now + BigInt(args.days ?? 20) * DAY,
      weight: BigInt(args.weight ?? 2000n * AVAX), rewardAddresses: [ewoq], delegatorRewardsOwner: [ewoq],
      shares: args.shares ?? 20000, publicKey: b.publicKey, signature: b.pop }, context)];
  },
  'p-delegator': async () => {
    const now = await chainNow();
    return ['P', pvm.e.newAddPermissionlessDelegatorTx({ ...(await pCommon(EWOQ_KEY)),
      nodeId: nodeIdOf(args.nodeSeed), subnetId: PRIMARY, start: now, end: now + BigInt(args.days ?? 10) * DAY,
      weight: BigInt(args.weight ?? 25n * AVAX), rewardAddresses: [ewoq] }, context)];
  },
  // one validator from nodeSeed/blsSeed, or args.validators: [{nodeID, weight, balance, publicKey, pop}] (hex keys)
  'p-convert': async () => {
    const b = args.validators ? null : blsKeyOf(args.blsSeed);
    const given = args.validators ?? [{ nodeID: nodeIdOf(args.nodeSeed), weight: args.weight ?? 100,
      balance: args.balance ?? AVAX, publicKey: b.publicKey, pop: b.pop }];
    const bytesOf = (k) => (typeof k === 'string' ? utils.hexToBuffer(k) : k);
    return ['P', pvm.e.newConvertSubnetToL1Tx({ ...(await pCommon(EWOQ_KEY)),
      subnetId: args.subnetID, chainId: args.chainID, address: utils.hexToBuffer(args.manager),
      validators: given.map((v) => L1Validator.fromNative(v.nodeID, BigInt(v.weight), BigInt(v.balance),
        new pvmSerial.ProofOfPossession(bytesOf(v.publicKey), bytesOf(v.pop)), PChainOwner.fromNative([ewoq], 1),
        PChainOwner.fromNative([ewoq], 1))),
      subnetAuth: [0] }, context), 'all'];
  },
  // message: a signed Warp message (hex) from the L1's manager; pop: the new validator's proof of possession
  'p-register': async () => ['P', pvm.e.newRegisterL1ValidatorTx({ ...(await pCommon(EWOQ_KEY)),
    balance: BigInt(args.balance ?? AVAX), blsSignature: utils.hexToBuffer(args.pop),
    message: utils.hexToBuffer(args.message) }, context)],
  'p-set-weight': async () => ['P', pvm.e.newSetL1ValidatorWeightTx({ ...(await pCommon(EWOQ_KEY)),
    message: utils.hexToBuffer(args.message) }, context)],
  'p-increase-balance': async () => ['P', pvm.e.newIncreaseL1ValidatorBalanceTx({ ...(await pCommon(EWOQ_KEY)),
    validationId: args.validationID, balance: BigInt(args.amount ?? AVAX) }, context)],
  'p-disable': async () => ['P', pvm.e.newDisableL1ValidatorTx({ ...(await pCommon(EWOQ_KEY)),
    validationId: args.validationID, disableAuth: [0] }, context), 'all'],
  'p-export': async () => ['P', pvm.e.newExportTx({ ...(await pCommon(EWOQ_KEY)),
    destinationChainId: chainIdOf(args.to),
    outputs: [TransferableOutput.fromNative(context.avaxAssetID, BigInt(args.amount), [k1])] }, context)],
  'p-import': async () => ['P', pvm.e.newImportTx({ feeState: await feeStateNow(), fromAddressesBytes: [k1],
    sourceChainId: chainIdOf(args.from), toAddressesBytes: [k1],
    utxos: (await papi.getUTXOs({ addresses: [fmt('P', k1)], sourceChain: args.from })).utxos }, context), K1_KEY],
  'x-send': async () => ['X', avm.newBaseTx(context, [ewoq],
    (await xapi.getUTXOs({ addresses: [fmt('X', ewoq)] })).utxos,
    [TransferableOutput.fromNative(args.assetID ?? context.avaxAssetID, BigInt(args.amount), [k1])])],
  'x-export': async () => ['X', avm.newExportTx(context, chainIdOf(args.to), [ewoq],
    (await xapi.getUTXOs({ addresses: [fmt('X', ewoq)] })).utxos,
    [TransferableOutput.fromNative(context.avaxAssetID, BigInt(args.amount), [k1])])],
  'x-import': async () => ['X', avm.newImportTx(context, chainIdOf(args.from),
    (await xapi.getUTXOs({ addresses: [fmt('X', k1)], sourceChain: args.from })).utxos, [k1], [k1]), K1_KEY],
  'c-import': async () => ['C', evm.newImportTxFromBaseFee(context, k1Eth, [k1],
    (await capi.getUTXOs({ addresses: [fmt('C', k1)], sourceChain: args.from })).utxos, chainIdOf(args.from),
    await baseFeeNAVAX()), K1_KEY],
  'c-export': async () => {
    const nonce = BigInt(await rpc('/ext/bc/C/rpc', 'eth_getTransactionCount', [utils.bufferToHex(k1Eth), 'latest']));
    return ['C', evm.newExportTxFromBaseFee(context, await baseFeeNAVAX(), BigInt(args.amount), chainIdOf(args.to),
      k1Eth, [k1], nonce), K1_KEY];
  },
};

if (!builders[kind]) throw new Error(`unknown kind ${kind}; have ${Object.keys(builders).join(', ')}`);
const [chain, unsignedTx, how] = await builders[kind]();
if (how === 'all') await signAll(unsignedTx, EWOQ_KEY);
else await addTxSignatures({ unsignedTx, privateKeys: [how ?? EWOQ_KEY] });
if (!unsignedTx.hasAllSignatures()) throw new Error(`${kind}: not fully signed`);
const bytes = unsignedTx.getSignedTx().toBytes();
const details = {};
if (kind === 'p-validator' || (kind === 'p-convert' && !args.validators)) details.nodeID = nodeIdOf(args.nodeSeed);
console.log(JSON.stringify({
  chain, kind, tx: hex(utils.addChecksum(bytes)), txID: utils.base58check.encode(sha256(bytes)), ...details,
}));
