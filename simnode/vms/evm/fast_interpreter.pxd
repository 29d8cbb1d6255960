# C types of fast_interpreter.py's hot locals for its compiled build (setup.py); the .py is the
# only source of its rules and runs unchanged without this file.
import cython

cdef int _CALL, _STATIC, _PUSH, _DUP, _SWAP, _POP, _JUMPDEST, _JUMP, _JUMPI, _BINARY, _UNARY, _CONTEXT
cdef int _MSTORE, _MLOAD, _CALLDATALOAD, _STOP, _SHA3, _SLOAD

@cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t, op=cython.int)
cpdef bytes code_mask(bytes code)

@cython.locals(raw=bytes, n_code=cython.Py_ssize_t, values=list, pc=cython.Py_ssize_t, op=cython.int,
               kind=cython.int, end=cython.Py_ssize_t, idx=cython.Py_ssize_t, plain_memory=cython.bint)
cpdef _run(computation, list table)
