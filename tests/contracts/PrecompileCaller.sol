// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// subnet-EVM's precompile interfaces (IAllowList, INativeMinter, IFeeManager, IRewardManager:
/// MIT-licensed interfaces, restated here with their events for the tests' ABIs).
interface IAllowList {
    event RoleSet(uint256 indexed role, address indexed account, address indexed sender, uint256 oldRole);

    function setAdmin(address addr) external;
    function setEnabled(address addr) external;
    function setManager(address addr) external;
    function setNone(address addr) external;
    function readAllowList(address addr) external view returns (uint256 role);
}

interface INativeMinter is IAllowList {
    event NativeCoinMinted(address indexed sender, address indexed recipient, uint256 amount);

    function mintNativeCoin(address addr, uint256 amount) external;
}

interface IFeeManager is IAllowList {
    struct FeeConfig {
        uint256 gasLimit;
        uint256 targetBlockRate;
        uint256 minBaseFee;
        uint256 targetGas;
        uint256 baseFeeChangeDenominator;
        uint256 minBlockGasCost;
        uint256 maxBlockGasCost;
        uint256 blockGasCostStep;
    }

    event FeeConfigChanged(address indexed sender, FeeConfig oldFeeConfig, FeeConfig newFeeConfig);

    function setFeeConfig(uint256 gasLimit, uint256 targetBlockRate, uint256 minBaseFee, uint256 targetGas,
                          uint256 baseFeeChangeDenominator, uint256 minBlockGasCost, uint256 maxBlockGasCost,
                          uint256 blockGasCostStep) external;
    function getFeeConfig() external view returns (uint256 gasLimit, uint256 targetBlockRate, uint256 minBaseFee,
                                                   uint256 targetGas, uint256 baseFeeChangeDenominator,
                                                   uint256 minBlockGasCost, uint256 maxBlockGasCost,
                                                   uint256 blockGasCostStep);
    function getFeeConfigLastChangedAt() external view returns (uint256 blockNumber);
}

interface IRewardManager is IAllowList {
    event RewardAddressChanged(address indexed sender, address indexed oldRewardAddress,
                               address indexed newRewardAddress);
    event FeeRecipientsAllowed(address indexed sender);
    event RewardsDisabled(address indexed sender);

    function setRewardAddress(address addr) external;
    function allowFeeRecipients() external;
    function disableRewards() external;
    function currentRewardAddress() external view returns (address rewardAddress);
    function areFeeRecipientsAllowed() external view returns (bool isAllowed);
}

/// simnode's precompile tests: calls a stateful precompile the ways a contract can (through an
/// interface, so Solidity checks the precompile has code; CALL, STATICCALL and DELEGATECALL with
/// raw data) and creates contracts with CREATE and CREATE2 (for the deployer allow list).
contract PrecompileCaller {
    event Result(bool ok, bytes data);
    event Created(address created);

    function callRaw(address target, bytes calldata data) external payable returns (bool ok, bytes memory ret) {
        (ok, ret) = target.call{value: msg.value}(data);
        emit Result(ok, ret);
    }

    function staticcallRaw(address target, bytes calldata data) external returns (bool ok, bytes memory ret) {
        (ok, ret) = target.staticcall(data);
        emit Result(ok, ret);
    }

    function delegatecallRaw(address target, bytes calldata data) external returns (bool ok, bytes memory ret) {
        (ok, ret) = target.delegatecall(data);
        emit Result(ok, ret);
    }

    function mint(address minter, address to, uint256 amount) external {
        INativeMinter(minter).mintNativeCoin(to, amount);
    }

    function setEnabled(address precompile, address addr) external {
        IAllowList(precompile).setEnabled(addr);
    }

    function readRole(address precompile, address addr) external view returns (uint256) {
        return IAllowList(precompile).readAllowList(addr);
    }

    /// CREATE (salt 0) or CREATE2 of a Child; address(0) when the creation fails.
    function create(bool useCreate2, bytes32 salt) external returns (address created) {
        bytes memory code = type(Child).creationCode;
        assembly {
            switch useCreate2
            case 0 { created := create(0, add(code, 0x20), mload(code)) }
            default { created := create2(0, add(code, 0x20), mload(code), salt) }
        }
        emit Created(created);
    }
}

contract Child {
    uint256 public value = 1;
}
