// P-Chain staking and L1 conversion with avalanchejs 5.2.0 against a running simnode, funded by
// ewoq's genesis P-Chain UTXOs. Every tx is built with the Etna builders (pvm.e.*) and the fee
// state from platform.getFeeState, signed with addTxSignatures (+ the avalanchejs examples' helper
// addSigToAllCreds for subnetAuth), issued with platform.issueTx and waited for (Committed):
//   1. CreateSubnetTx                owner ewoq (first, so the chain time leaves genesis; now = platform.getTimestamp after it)
//   2. AddPermissionlessValidatorTx  primary network, fresh NodeID + BLS key/PoP, 2000 AVAX, end = now + 15 d
//   3. AddPermissionlessDelegatorTx  25 AVAX to that validator, end = now + 14 d
//   4. CreateChainTx                 subnet-EVM on it
//   5. ConvertSubnetToL1Tx           manager = that chain + 0x0feedc0de…, one validator (fresh NodeID + BLS)
// Usage: node pchain_staking.mjs <baseURL>          (prints one JSON line)
import {
  pvm, pvmSerial, Context, utils, addTxSignatures, secp256k1, bls, L1Validator, PChainOwner,
} from '@avalabs/avalanchejs';
import { bls12_381 } from '@noble/curves/bls12-381';
import { createHash } from 'node:crypto';

const [baseURL] = process.argv.slice(2);
if (!baseURL) throw new Error('usage: node pchain_staking.mjs <baseURL>');

const EWOQ_KEY = utils.hexToBuffer('0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027');
const AVAX = 1_000_000_000n;
const DAY = 86400n;
const PRIMARY = '11111111111111111111111111111111LpoYY';
const SUBNET_EVM = 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy';
const MANAGER_ADDRESS = utils.hexToBuffer('0x0feedc0de0000000000000000000000000000000');
const BLS_R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

const sha256 = (s) => new Uint8Array(createHash('sha256').update(s).digest());
const hex = (b) => utils.bufferToHex(b);
const nodeIdOf = (seed) => `NodeID-${utils.base58check.encode(sha256(seed).slice(0, 20))}`;
function blsKeyOf(seed) {
  const sk = BigInt(hex(sha256(seed))) % BLS_R;
  const skBytes = utils.hexToBuffer(sk.toString(16).padStart(64, '0'));
  const publicKey = bls12_381.getPublicKey(skBytes); // 48-byte compressed G1
  const pop = bls.signProofOfPossession(publicKey, bls.secretKeyFromBytes(skBytes));
  if (!bls.verifyProofOfPossession(bls.publicKeyFromBytes(publicKey), bls.signatureFromBytes(pop), publicKey)) {
    throw new Error('PoP does not verify');
  }
  return { publicKey, pop };
}

const context = await Context.getContextFromURI(baseURL);
const papi = new pvm.PVMApi(baseURL);
const ewoqBytes = secp256k1.publicKeyBytesToAddress(secp256k1.getPublicKey(EWOQ_KEY));
const EWOQ_P = utils.format('P', context.hrp, ewoqBytes);

async function rpc(method, params) {
  const res = await fetch(`${baseURL}/ext/bc/P`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function waitCommitted(txID) {
  const deadline = Date.now() + 10000;
  for (;;) {
    const r = await rpc('platform.getTxStatus', { txID });
    if (r.status === 'Committed') return r.status;
    if (r.status === 'Aborted' || r.status === 'Dropped') throw new Error(`tx ${txID} ${JSON.stringify(r)}`);
    if (Date.now() > deadline) throw new Error(`tx ${txID} still ${r.status} after 10 s`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

// The helper from avalanchejs' own examples: one signature, put at index 0 of every credential
// (the subnetAuth credential included), for txs whose inputs and subnet owner are all one key.
async function addSigToAllCreds(unsignedTx, privateKey) {
  const publicKey = secp256k1.getPublicKey(privateKey);
  if (!unsignedTx.hasPubkey(publicKey)) return;
  const signature = await secp256k1.sign(unsignedTx.toBytes(), privateKey);
  for (let i = 0; i < unsignedTx.getCredentials().length; i++) unsignedTx.addSignatureAt(signature, i, 0);
}

const common = async () => ({
  feeState: await papi.getFeeState(),
  fromAddressesBytes: [ewoqBytes],
  utxos: (await papi.getUTXOs({ addresses: [EWOQ_P] })).utxos,
});

const txs = {};
async function issue(name, unsignedTx, { subnetAuth = false } = {}) {
  if (subnetAuth) await addSigToAllCreds(unsignedTx, EWOQ_KEY);
  else await addTxSignatures({ unsignedTx, privateKeys: [EWOQ_KEY] });
  if (!unsignedTx.hasAllSignatures()) throw new Error(`${name}: not fully signed`);
  const signed = unsignedTx.getSignedTx();
  const expectedTxID = utils.base58check.encode(sha256(signed.toBytes()));
  const { txID } = await papi.issueSignedTx(signed);
  const status = await waitCommitted(txID);
  // The client reads the tx back (platform.getTx, parsed by its codec): same bytes.
  const readBack = utils.bufferToHex((await papi.getTx({ txID })).toBytes()) === utils.bufferToHex(signed.toBytes());
  const burned = utils.getBurnedAmountByTx(unsignedTx.getTx(), context).get(context.avaxAssetID) ?? 0n;
  txs[name] = { txID, expectedTxID, status, readBack, type: unsignedTx.getTx()._type, burned: burned.toString() };
  return txID;
}

const balanceBefore = (await rpc('platform.getBalance', { addresses: [EWOQ_P] })).balance;
const genesisTime = (await papi.getTimestamp()).timestamp;

// 1. A subnet owned by ewoq. Issued first so that the chain time moves from genesis to the
// present: platform.getTimestamp is the last accepted block's time, and a staker's end is checked
// against the time of the block that includes it (Durango+), as on AvalancheGo.
const subnetID = await issue('CreateSubnetTx', pvm.e.newCreateSubnetTx({
  ...(await common()),
  subnetOwners: [ewoqBytes],
  threshold: 1,
}, context));

const { timestamp } = await papi.getTimestamp();
const supplyBeforeValidator = (await rpc('platform.getCurrentSupply', {})).supply;
const now = BigInt(Math.floor(Date.parse(timestamp) / 1000));

// 2. A primary-network validator with a BLS key.
const validatorNodeID = nodeIdOf('simnode-js-node-1');
const vbls = blsKeyOf('simnode-js-bls-1');
const validatorEnd = now + 15n * DAY;
const validatorWeight = 2000n * AVAX;
const shares = 20000; // 2 %
await issue('AddPermissionlessValidatorTx', pvm.e.newAddPermissionlessValidatorTx({
  ...(await common()),
  nodeId: validatorNodeID,
  subnetId: PRIMARY,
  start: now,
  end: validatorEnd,
  weight: validatorWeight,
  rewardAddresses: [ewoqBytes],
  delegatorRewardsOwner: [ewoqBytes],
  shares,
  publicKey: vbls.publicKey,
  signature: vbls.pop,
}, context));

// 3. A delegator to it.
const delegatorEnd = now + 14n * DAY;
const delegatorWeight = 25n * AVAX;
await issue('AddPermissionlessDelegatorTx', pvm.e.newAddPermissionlessDelegatorTx({
  ...(await common()),
  nodeId: validatorNodeID,
  subnetId: PRIMARY,
  start: now,
  end: delegatorEnd,
  weight: delegatorWeight,
  rewardAddresses: [ewoqBytes],
}, context));

// 4. A subnet-EVM chain on it.
const genesisData = {
  config: {
    chainId: 99998,
    homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0, byzantiumBlock: 0,
    constantinopleBlock: 0, petersburgBlock: 0, istanbulBlock: 0, muirGlacierBlock: 0,
    feeConfig: {
      gasLimit: 12000000, targetBlockRate: 2, minBaseFee: 25000000000, targetGas: 60000000,
      baseFeeChangeDenominator: 36, minBlockGasCost: 0, maxBlockGasCost: 1000000, blockGasCostStep: 200000,
    },
    warpConfig: { blockTimestamp: 0, quorumNumerator: 67 },
  },
  alloc: { '8db97c7cece249c2b98bdc0226cc4c2a57bf52fc': { balance: '0x52b7d2dcc80cd2e4000000' } },
  nonce: '0x0', timestamp: '0x0', extraData: '0x', gasLimit: '0xb71b00', difficulty: '0x0',
  mixHash: `0x${'00'.repeat(32)}`, coinbase: `0x${'00'.repeat(20)}`, number: '0x0', gasUsed: '0x0',
  parentHash: `0x${'00'.repeat(32)}`,
};
const chainName = 'jsSubnetEVM';
const chainID = await issue('CreateChainTx', pvm.e.newCreateChainTx({
  ...(await common()),
  subnetId: subnetID,
  chainName,
  vmId: SUBNET_EVM,
  fxIds: [],
  genesisData,
  subnetAuth: [0],
}, context), { subnetAuth: true });

// What the node says about the subnet while it is still permissioned (raw HTTP, checked by pytest).
const subnetBeforeConversion = await rpc('platform.getSubnet', { subnetID });

// 5. Convert the subnet to an L1 with one validator.
const l1NodeID = nodeIdOf('simnode-js-node-2');
const lbls = blsKeyOf('simnode-js-bls-2');
const l1Weight = 100n;
const l1Balance = 1n * AVAX;
await issue('ConvertSubnetToL1Tx', pvm.e.newConvertSubnetToL1Tx({
  ...(await common()),
  subnetId: subnetID,
  chainId: chainID,
  address: MANAGER_ADDRESS,
  validators: [L1Validator.fromNative(
    l1NodeID, l1Weight, l1Balance,
    new pvmSerial.ProofOfPossession(lbls.publicKey, lbls.pop),
    PChainOwner.fromNative([ewoqBytes], 1),
    PChainOwner.fromNative([ewoqBytes], 1),
  )],
  subnetAuth: [0],
}, context), { subnetAuth: true });

const balanceAfter = (await rpc('platform.getBalance', { addresses: [EWOQ_P] })).balance;

// Read back through avalanchejs' own API wrappers (they parse the numbers and owners): the L1
// validator by the validationID AvalancheGo derives for conversion validators,
// sha256(subnetID ‖ u32be(index)).
const validationID = utils.base58check.encode(sha256(Buffer.concat([
  Buffer.from(utils.base58check.decode(subnetID)), Buffer.from([0, 0, 0, 0]),
])));
const lv = await papi.getL1Validator(validationID);
const clientBalance = await papi.getBalance({ addresses: [EWOQ_P] });
const clientView = {
  validationID,
  l1Validator: {
    nodeID: lv.nodeID,
    subnetID: lv.subnetID,
    publicKey: lv.publicKey,
    weight: lv.weight.toString(),
    balance: lv.balance.toString(),
    startTime: lv.startTime.toString(),
    height: lv.height.toString(),
    minNonce: lv.minNonce.toString(),
    remainingBalanceOwner: lv.remainingBalanceOwner.getAddresses().map((a) => utils.format('P', context.hrp, a.toBytes())),
    deactivationOwner: lv.deactivationOwner.getAddresses().map((a) => utils.format('P', context.hrp, a.toBytes())),
  },
  balance: {
    balance: clientBalance.balance.toString(),
    unlocked: clientBalance.unlocked.toString(),
    lockedStakeable: clientBalance.lockedStakeable.toString(),
    lockedNotStakeable: clientBalance.lockedNotStakeable.toString(),
  },
};

console.log(JSON.stringify({
  genesisTime,
  chainTime: timestamp,
  now: now.toString(),
  supplyBeforeValidator,
  ewoqP: EWOQ_P,
  balanceBefore,
  balanceAfter,
  validator: {
    nodeID: validatorNodeID,
    end: validatorEnd.toString(),
    weight: validatorWeight.toString(),
    shares,
    publicKey: hex(vbls.publicKey),
    proofOfPossession: hex(vbls.pop),
  },
  delegator: { end: delegatorEnd.toString(), weight: delegatorWeight.toString() },
  subnetID,
  subnetBeforeConversion,
  chain: { id: chainID, name: chainName, vmID: SUBNET_EVM, genesis: JSON.stringify(genesisData) },
  l1: {
    nodeID: l1NodeID,
    nodeIDHex: hex(utils.base58check.decode(l1NodeID.slice('NodeID-'.length))),
    weight: l1Weight.toString(),
    balance: l1Balance.toString(),
    publicKey: hex(lbls.publicKey),
    proofOfPossession: hex(lbls.pop),
    managerAddress: hex(MANAGER_ADDRESS),
  },
  txs,
  clientView,
}));
