// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import "./Token.sol";

/// A contract Factory creates; it can pass value on and hand its balance back by SELFDESTRUCT.
contract Child {
    address public creator;

    constructor() payable {
        creator = msg.sender;
    }

    function ping() external payable returns (uint256) {
        return address(this).balance;
    }

    function destroy(address payable to) external {
        selfdestruct(to);
    }
}

/// Creates contracts with CREATE and CREATE2, moves value through internal calls, and creates
/// inside frames that revert: call frames for simnode's recorder and index tests.
contract Factory {
    event Deployed(address child, bool create2);

    function deploy() external payable returns (address c) {
        c = address(new Child{value: msg.value}());
        emit Deployed(c, false);
    }

    function deploy2(bytes32 salt) external payable returns (address c) {
        c = address(new Child{salt: salt, value: msg.value}());
        emit Deployed(c, true);
    }

    function deployToken(string calldata name_, string calldata symbol_, uint256 supply) external returns (address) {
        return address(new Token(name_, symbol_, supply));
    }

    function deployAndRevert() external {
        new Child();
        revert("undone");
    }

    /// One creation undone with the frame around it, one that stays.
    function deployAfterFailure() external returns (address c) {
        try this.deployAndRevert() {} catch {}
        c = address(new Child());
        emit Deployed(c, false);
    }

    function forward(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "forward failed");
    }

    function pingAndDestroy(Child child, address payable to) external payable {
        child.ping{value: msg.value}();
        child.destroy(to);
    }
}
