"""A faster py-evm interpreter core with the same results (gas, output, errors, state).

Applied from speedups.apply(); `restore()` puts py-evm's originals back (tests compare both).
* Jump-destination analysis: one linear pass per distinct code (bounded cache) gives a mask of
  opcode positions; py-evm re-derived it by scanning back up to 32 bytes for every jump target
  of every message.
* `apply_computation`: py-evm's, but the opcode loop charges static gas inline (no
  Opcode.__call__ → computation.consume_gas → GasMeter.consume_gas per opcode) and runs the
  stack, flow, pure arithmetic/comparison, message-context, MSTORE/MLOAD/CALLDATALOAD and SHA3
  ops directly on the stack list and memory (memory growth charged as py-evm's extend_memory
  does), raising the exceptions py-evm raises with the same messages. The program counter and
  the gas left live in locals and are written back before every py-evm call, every exception and
  the end. Anything else, and any table entry that is not a plain py-evm opcode (debug tracing's
  wrappers, CALL/CREATE classes), is called as py-evm calls it. Computations with their own
  gas/stack/memory plumbing or with DEBUG2 logging run py-evm's loop.
* The inlined ops push ints where py-evm pushes PUSH data or loaded words as bytes: every
  consumer reads an item as the same number (py-evm's to_int) or as bytes left-padded to a word,
  a byte or an address, so results are the same; only a DEBUG2 stack dump would differ, and that
  case runs py-evm's loop (debug traces do too: all their table entries are wrappers).
* Stack `pop_ints`/`push_int` and `extend_memory` without the generic helper calls and
  re-validation on their common paths; a stack item is an int or bytes, read with
  int.from_bytes as py-evm's to_int does.
"""

from __future__ import annotations

from typing import Any

from eth._utils.numeric import ceil32
from eth.constants import GAS_SHA3WORD, UINT_255_MAX, UINT_256_MAX
from eth.exceptions import FullStack, Halt, InsufficientStack, InvalidInstruction, InvalidJumpDestination, OutOfGas
from eth.validation import validate_stack_int
from eth.vm.code_stream import CodeStream
from eth.vm.computation import NO_RESULT, BaseComputation, memory_gas_cost
from eth.vm.forks.berlin import constants as berlin_constants
from eth.vm.forks.berlin import logic as berlin_logic
from eth.vm.gas_meter import GasMeter
from eth.vm.logic import arithmetic, comparison, context, duplication, flow, swap
from eth.vm.logic import memory as memory_logic
from eth.vm.logic import sha3 as sha3_logic
from eth.vm.logic import stack as stack_logic
from eth.vm.logic.invalid import InvalidOpcode
from eth.vm.memory import Memory
from eth.vm.opcode import _FastOpcode
from eth.vm.opcode_values import JUMPDEST, PUSH1, PUSH32, STOP
from eth.vm.stack import Stack
from eth_hash.auto import keccak

# ------------------------------------------------------------------ jump destinations

_MASKS: dict[bytes, bytes] = {}
_MASKS_MAX = 512


def code_mask(code: bytes) -> bytes:
    """Byte i is 1 when position i of `code` starts an instruction (is not PUSH data)."""
    mask = _MASKS.get(code)
    if mask is None:
        out = bytearray(len(code))
        i, n = 0, len(code)
        while i < n:
            out[i] = 1
            op = code[i]
            i += op - PUSH1 + 2 if PUSH1 <= op <= PUSH32 else 1
        mask = bytes(out)
        if len(_MASKS) >= _MASKS_MAX:
            _MASKS.clear()  # deployments churn distinct init code; hot contracts come back at once
        _MASKS[code] = mask
    return mask


def is_valid_opcode(self: CodeStream, position: int) -> bool:
    if position < 0:  # py-evm answers True here; never reached from JUMP/JUMPI
        return _ORIGINAL["is_valid_opcode"](self, position)
    code = self._raw_code_bytes
    return position < len(code) and code_mask(code)[position] == 1


# ------------------------------------------------------------------ the opcode loop

# Entry kinds of a compiled opcode table.
(_CALL, _STATIC, _PUSH, _DUP, _SWAP, _POP, _JUMPDEST, _JUMP, _JUMPI, _BINARY, _UNARY, _CONTEXT, _MSTORE, _MLOAD,
 _CALLDATALOAD, _STOP, _SHA3, _SLOAD) = range(18)


def _signed(value: int) -> int:
    return value - (1 << 256) if value > UINT_255_MAX else value


# py-evm's pure stack ops as (top, next) -> result: the same results as its logic functions, whose
# operands are the first and second items popped
_BINARY_OPS: dict[Any, Any] = {
    arithmetic.add: lambda a, b: (a + b) & UINT_256_MAX,
    arithmetic.sub: lambda a, b: (a - b) & UINT_256_MAX,
    arithmetic.mul: lambda a, b: (a * b) & UINT_256_MAX,
    arithmetic.shl: lambda shift, value: 0 if shift >= 256 else (value << shift) & UINT_256_MAX,
    arithmetic.shr: lambda shift, value: 0 if shift >= 256 else value >> shift,
    comparison.lt: lambda a, b: 1 if a < b else 0,
    comparison.gt: lambda a, b: 1 if a > b else 0,
    comparison.slt: lambda a, b: 1 if _signed(a) < _signed(b) else 0,
    comparison.sgt: lambda a, b: 1 if _signed(a) > _signed(b) else 0,
    comparison.eq: lambda a, b: 1 if a == b else 0,
    comparison.and_op: lambda a, b: a & b,
    comparison.or_op: lambda a, b: a | b,
    comparison.xor: lambda a, b: a ^ b,
    comparison.byte_op: lambda position, value: 0 if position >= 32 else (value >> (8 * (31 - position))) & 0xFF,
}
_UNARY_OPS: dict[Any, Any] = {
    comparison.iszero: lambda value: 1 if value == 0 else 0,
    comparison.not_op: lambda value: UINT_256_MAX - value,
}
# what a message-context op pushes (py-evm pushes the same int or bytes)
_CONTEXT_OPS: dict[Any, Any] = {
    context.caller: lambda computation: computation.msg.sender,
    context.callvalue: lambda computation: computation.msg.value,
    context.calldatasize: lambda computation: len(computation.msg.data),
    context.address: lambda computation: computation.msg.storage_address,
}

_SPECIAL: dict[Any, tuple[int, Any]] = {flow.stop: (_STOP, 0), flow.jumpdest: (_JUMPDEST, 0), flow.jump: (_JUMP, 0),
                                        flow.jumpi: (_JUMPI, 0), stack_logic.pop: (_POP, 0),
                                        memory_logic.mstore: (_MSTORE, 0), memory_logic.mload: (_MLOAD, 0),
                                        context.calldataload: (_CALLDATALOAD, 0), sha3_logic.sha3: (_SHA3, 0),
                                        berlin_logic.sload_eip2929: (_SLOAD, 0)}
for _n in range(33):
    _SPECIAL[getattr(stack_logic, f"push{_n}")] = (_PUSH, _n)
for _n in range(1, 17):
    _SPECIAL[getattr(duplication, f"dup{_n}")] = (_DUP, _n)
    _SPECIAL[getattr(swap, f"swap{_n}")] = (_SWAP, _n)
_SPECIAL.update({fn: (_BINARY, op) for fn, op in _BINARY_OPS.items()})
_SPECIAL.update({fn: (_UNARY, op) for fn, op in _UNARY_OPS.items()})
_SPECIAL.update({fn: (_CONTEXT, op) for fn, op in _CONTEXT_OPS.items()})

_Entry = tuple[int, int, Any, str, Any]
_TABLES: dict[int, tuple[dict, list[_Entry]]] = {}


def _compile(opcodes: dict) -> list[_Entry]:
    """(kind, static gas, callable, mnemonic, argument) per byte value, cached per table."""
    hit = _TABLES.get(id(opcodes))
    if hit is not None and hit[0] is opcodes:
        return hit[1]
    table: list[_Entry] = []
    for op in range(256):
        fn = opcodes.get(op)
        if fn is None:
            table.append((_CALL, 0, InvalidOpcode(op), "INVALID", 0))
        elif type(fn) is _FastOpcode:
            kind, arg = _SPECIAL.get(fn.logic_fn, (_STATIC, 0))
            table.append((kind, fn.gas_cost, fn.logic_fn, fn.mnemonic, arg))
        else:
            table.append((_CALL, 0, fn, "", 0))
    if len(_TABLES) >= 64:  # each debug trace brings a table of its own
        _TABLES.clear()
    _TABLES[id(opcodes)] = (opcodes, table)
    return table


# The computation methods the inlined ops stand for; a class overriding one runs py-evm's loop.
_PLUMBING = ("consume_gas", "stack_dup", "stack_swap", "stack_pop1_any", "stack_pop1_int", "stack_pop1_bytes",
             "stack_pop_ints", "stack_push_int", "stack_push_bytes", "extend_memory", "memory_write",
             "memory_read_bytes")


_PLAIN_CLASSES: dict[type, bool] = {}


def _loop_is_exact(computation: BaseComputation) -> bool:
    cls = type(computation)
    plain = _PLAIN_CLASSES.get(cls)
    if plain is None:
        plain = _PLAIN_CLASSES[cls] = all(getattr(cls, name, None) is getattr(BaseComputation, name, None)
                                          for name in _PLUMBING)
    return (plain and type(computation._gas_meter) is GasMeter and type(computation._stack) is Stack
            and type(computation.code) is CodeStream)


_from_bytes = int.from_bytes  # bound once: `int.from_bytes` makes a new bound method each time


def _grow_memory(memory: Memory, start: int, size: int, gas: int) -> int:
    """py-evm's extend_memory for a non-empty range past the end: the gas left after paying for the
    growth (OutOfGas as py-evm raises it), the memory grown to whole words."""
    before_size = ceil32(len(memory))
    after_size = ceil32(start + size)
    fee = memory_gas_cost(after_size) - memory_gas_cost(before_size)
    if fee > gas:
        raise OutOfGas(f"Out of gas: Needed {fee} - Remaining {gas} - Reason: Expanding memory {before_size} -> "
                       f"{after_size}")
    memory.extend(start, size)
    return gas - fee


def _run(computation: BaseComputation, table: list[_Entry]) -> None:
    # pc and gas live in locals; code.program_counter and the gas meter are written back before
    # anything that can read them (a py-evm call, an exception, the end) and read again after a call
    code = computation.code
    raw = code._raw_code_bytes
    n_code = len(raw)
    gm = computation._gas_meter
    values = computation._stack.values
    append, pop = values.append, values.pop
    from_bytes = _from_bytes
    mask = None
    memory = computation._memory
    plain_memory = type(memory) is Memory  # else MSTORE/MLOAD go through py-evm's functions
    data = computation.msg.data_as_bytes
    pc = code.program_counter
    gas = gm.gas_remaining
    try:
        while True:
            if pc < n_code:
                op = raw[pc]
                pc += 1
            else:  # py-evm's CodeStream yields one STOP past the end (pc stays), then stops
                if table[STOP][0] != _STOP:  # a debug tracer's STOP
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    _original_step(computation, STOP)
                break
            kind, cost, fn, name, arg = table[op]
            if kind == _CALL:
                code.program_counter = pc
                gm.gas_remaining = gas
                fn(computation=computation)
                pc = code.program_counter
                gas = gm.gas_remaining
                continue
            if cost > gas:
                code.program_counter = pc
                gm.gas_remaining = gas
                raise OutOfGas(f"Out of gas: Needed {cost} - Remaining {gas} - Reason: {name}")
            gas -= cost
            if kind == _PUSH:
                # an int from the start: every consumer reads PUSH data as the same number
                # (py-evm's to_int, or bytes left-padded to a word or an address)
                end = pc + arg
                if end > n_code:  # truncated at the end of the code: py-evm pads the data on the right
                    value = from_bytes(raw[pc:end].ljust(arg, b"\x00"), "big")
                elif arg == 1:  # the common widths without int.from_bytes's costly call
                    value = raw[pc]
                elif arg == 2:
                    value = raw[pc] << 8 | raw[pc + 1]
                elif arg == 0:
                    value = 0
                else:
                    value = from_bytes(raw[pc:end], "big")
                pc = end
                if len(values) > 1023:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    raise FullStack("Stack limit reached")
                append(value)
            elif kind == _DUP:
                if len(values) > 1023:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    raise FullStack("Stack limit reached")
                try:
                    append(values[-arg])
                except IndexError:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    raise InsufficientStack(f"Insufficient stack items for DUP{arg}") from None
            elif kind == _SWAP:
                idx = -arg - 1
                try:
                    values[-1], values[idx] = values[idx], values[-1]
                except IndexError:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    raise InsufficientStack(f"Insufficient stack items for SWAP{arg}") from None
            elif kind == _BINARY:
                if len(values) < 2:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    fn(computation)  # raises py-evm's InsufficientStack
                a = pop()
                b = pop()
                append(arg(a if type(a) is int else from_bytes(a, "big"),
                           b if type(b) is int else from_bytes(b, "big")))
            elif kind == _JUMPDEST:
                pass
            elif kind == _POP:
                if not values:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    raise InsufficientStack("Wanted 1 stack item, had none")
                pop()
            elif kind == _JUMP or kind == _JUMPI:
                if kind == _JUMP:
                    if not values:
                        code.program_counter = pc
                        gm.gas_remaining = gas
                        raise InsufficientStack("Wanted 1 stack item, had none")
                    dest = pop()
                    if type(dest) is not int:
                        dest = from_bytes(dest, "big")
                else:
                    if len(values) < 2:
                        code.program_counter = pc
                        gm.gas_remaining = gas
                        raise InsufficientStack(f"Wanted 2 stack items, only had {len(values)}")
                    dest = pop()
                    if type(dest) is not int:
                        dest = from_bytes(dest, "big")
                    check = pop()
                    if type(check) is not int:
                        check = from_bytes(check, "big")
                    if not check:
                        continue
                pc = dest
                if dest >= n_code or raw[dest] != JUMPDEST:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    raise InvalidJumpDestination("Invalid Jump Destination")
                if mask is None:
                    mask = code_mask(raw)
                if mask[dest] != 1:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    raise InvalidInstruction("Jump resulted in invalid instruction")
            elif kind == _MSTORE or kind == _MLOAD:
                if not plain_memory or not values or (kind == _MSTORE and len(values) < 2):
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    fn(computation)  # py-evm's own memory, or its InsufficientStack
                    gas = gm.gas_remaining
                    continue
                start = values[-1]
                if type(start) is not int:
                    start = from_bytes(start, "big")
                if start + 32 > len(memory._bytes):
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    gas = _grow_memory(memory, start, 32, gas)
                if kind == _MSTORE:
                    pop()
                    v = pop()
                    memory._bytes[start:start + 32] = (v.to_bytes(32, "big") if type(v) is int
                                                       else v.rjust(32, b"\x00")[-32:])
                else:
                    values[-1] = from_bytes(memory._bytes[start:start + 32], "big")
            elif kind == _SHA3:
                if not plain_memory or len(values) < 2:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    fn(computation)  # py-evm's own memory, or its InsufficientStack
                    gas = gm.gas_remaining
                    continue
                start = pop()
                if type(start) is not int:
                    start = from_bytes(start, "big")
                size = pop()
                if type(size) is not int:
                    size = from_bytes(size, "big")
                if size and start + size > len(memory._bytes):
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    gas = _grow_memory(memory, start, size, gas)
                cost = GAS_SHA3WORD * ((size + 31) // 32)
                if cost > gas:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    raise OutOfGas(f"Out of gas: Needed {cost} - Remaining {gas} - Reason: SHA3: word gas cost")
                gas -= cost
                append(from_bytes(keccak(bytes(memory._bytes[start:start + size])), "big"))
            elif kind == _UNARY:
                if not values:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    fn(computation)  # raises py-evm's InsufficientStack
                a = values[-1]
                values[-1] = arg(a if type(a) is int else from_bytes(a, "big"))
            elif kind == _CONTEXT:
                if len(values) > 1023:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    fn(computation)  # raises py-evm's FullStack
                append(arg(computation))
            elif kind == _CALLDATALOAD:
                if not values:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    fn(computation)  # raises py-evm's InsufficientStack
                start = values[-1]
                if type(start) is not int:
                    start = from_bytes(start, "big")
                values[-1] = from_bytes(data[start:start + 32].ljust(32, b"\x00"), "big")
            elif kind == _SLOAD:  # py-evm's sload_eip2929
                if not values:
                    code.program_counter = pc
                    gm.gas_remaining = gas
                    fn(computation)  # raises py-evm's InsufficientStack
                slot = pop()
                if type(slot) is not int:
                    slot = from_bytes(slot, "big")
                code.program_counter = pc  # the state is py-evm's: what it raises leaves the loop
                gm.gas_remaining = gas
                state = computation.state
                address = computation.msg.storage_address
                if state.is_storage_warm(address, slot):
                    cost = berlin_constants.WARM_STORAGE_READ_COST
                else:
                    state.mark_storage_warm(address, slot)
                    cost = berlin_constants.COLD_SLOAD_COST
                if cost > gas:
                    raise OutOfGas(f"Out of gas: Needed {cost} - Remaining {gas} - Reason: SLOAD")
                gas -= cost
                gm.gas_remaining = gas
                append(state.get_storage(address=address, slot=slot))
            elif kind == _STOP:
                break
            else:  # _STATIC: a py-evm logic function after its static gas
                code.program_counter = pc
                gm.gas_remaining = gas
                fn(computation)
                pc = code.program_counter
                gas = gm.gas_remaining
    except Halt:
        return
    code.program_counter = pc
    gm.gas_remaining = gas


def apply_computation(cls: type[BaseComputation], state: Any, message: Any, transaction_context: Any,
                      parent_computation: Any = None) -> BaseComputation:
    """py-evm's BaseComputation.apply_computation with the loop above."""
    if cls.logger.show_debug2 or GasMeter.logger.show_debug2:  # the loop above logs nothing
        return _ORIGINAL["apply_computation"].__get__(None, cls)(state, message, transaction_context,
                                                                 parent_computation)
    with cls(state, message, transaction_context) as computation:
        if computation.is_origin_computation:
            computation.contracts_created = []
            if message.is_create:
                cls.consume_initcode_gas_cost(computation)
        if parent_computation is not None:
            computation.contracts_created = parent_computation.contracts_created
        if message.is_create:
            computation.contracts_created.append(message.storage_address)
        precompile = computation.precompiles.get(message.code_address, NO_RESULT)
        if precompile is not NO_RESULT:
            if not message.is_delegation:
                precompile(computation)
            return computation
        if _loop_is_exact(computation):
            _run(computation, _compile(computation.opcodes))
        else:
            _original_loop(computation)
    return computation


def _original_loop(computation: BaseComputation) -> None:
    """py-evm's loop (its DEBUG2 opcode log aside: apply_computation leaves that case to py-evm)."""
    opcode_lookup = computation.opcodes
    for opcode in computation.code:
        try:
            opcode_fn = opcode_lookup[opcode]
        except KeyError:
            opcode_fn = InvalidOpcode(opcode)
        try:
            opcode_fn(computation=computation)
        except Halt:
            break


def _original_step(computation: BaseComputation, opcode: int) -> None:
    """One step of the loop above."""
    try:
        opcode_fn = computation.opcodes[opcode]
    except KeyError:
        opcode_fn = InvalidOpcode(opcode)
    opcode_fn(computation=computation)


# ------------------------------------------------------------------ stack and memory


def pop_ints(self: Stack, num_items: int) -> tuple[int, ...]:
    values = self.values
    if num_items == 2 and len(values) >= 2:
        a = values.pop()
        b = values.pop()
        return (a if type(a) is int else _from_bytes(a, "big"), b if type(b) is int else _from_bytes(b, "big"))
    return _ORIGINAL["pop_ints"](self, num_items)


def pop1_int(self: Stack) -> int:
    try:
        value = self.values.pop()
    except IndexError:
        raise InsufficientStack("Wanted 1 stack item, had none") from None
    return value if type(value) is int else _from_bytes(value, "big")


def push_int(self: Stack, value: int) -> None:
    values = self.values
    if len(values) > 1023:
        raise FullStack("Stack limit reached")
    if not (type(value) is int and 0 <= value <= UINT_256_MAX):
        validate_stack_int(value)
    values.append(value)


def extend_memory(self: BaseComputation, start_position: int, size: int) -> None:
    # the common case: ints within memory already paid for (no gas, no growth)
    memory = self._memory
    if (type(memory) is Memory and type(start_position) is int and type(size) is int
            and 0 <= start_position and 0 <= size and start_position + size <= len(memory._bytes)
            and not self.logger.show_debug2):
        return
    _ORIGINAL["extend_memory"](self, start_position, size)


# ------------------------------------------------------------------ switching

_ORIGINAL: dict[str, Any] = {
    "is_valid_opcode": CodeStream.is_valid_opcode,
    "apply_computation": BaseComputation.__dict__["apply_computation"],
    "pop_ints": Stack.pop_ints,
    "pop1_int": Stack.pop1_int,
    "push_int": Stack.push_int,
    "extend_memory": BaseComputation.extend_memory,
}


def apply() -> None:
    CodeStream.is_valid_opcode = is_valid_opcode
    BaseComputation.apply_computation = classmethod(apply_computation)
    Stack.pop_ints = pop_ints
    Stack.pop1_int = pop1_int
    Stack.push_int = push_int
    BaseComputation.extend_memory = extend_memory


def restore() -> None:
    CodeStream.is_valid_opcode = _ORIGINAL["is_valid_opcode"]
    BaseComputation.apply_computation = _ORIGINAL["apply_computation"]
    Stack.pop_ints = _ORIGINAL["pop_ints"]
    Stack.pop1_int = _ORIGINAL["pop1_int"]
    Stack.push_int = _ORIGINAL["push_int"]
    BaseComputation.extend_memory = _ORIGINAL["extend_memory"]
