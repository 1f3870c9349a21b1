/**
 * Python's builtin names (`dir(builtins)` of CPython 3.8–3.13, without the
 * private ones): a name bound nowhere in a module is one of these, or comes
 * from a star import, or is not defined at all.
 *
 * @module
 */

/** The builtins. */
const BUILTINS: ReadonlySet<string> = new Set(
  (
    "ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup " +
    "BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError " +
    "ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError " +
    "DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception " +
    "ExceptionGroup False FileExistsError FileNotFoundError FloatingPointError FutureWarning " +
    "GeneratorExit IOError ImportError ImportWarning IndentationError IndexError " +
    "InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError " +
    "ModuleNotFoundError NameError None NotADirectoryError NotImplemented NotImplementedError " +
    "OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError " +
    "PythonFinalizationError RecursionError ReferenceError ResourceWarning RuntimeError " +
    "RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError " +
    "SystemExit TabError TimeoutError True TypeError UnboundLocalError UnicodeDecodeError " +
    "UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning " +
    "ValueError Warning ZeroDivisionError abs aiter all anext any ascii bin bool breakpoint " +
    "bytearray bytes callable chr classmethod compile complex copyright credits delattr dict " +
    "dir divmod enumerate eval exec exit filter float format frozenset getattr globals hasattr " +
    "hash help hex id input int isinstance issubclass iter len license list locals map max " +
    "memoryview min next object oct open ord pow print property quit range repr reversed " +
    "round set setattr slice sorted staticmethod str sum super tuple type vars zip"
  ).split(" "),
);

/**
 * Whether a name is a builtin, or a module attribute every module has (`__name__`, `__file__`).
 *
 * @param name The name.
 * @returns True for a builtin.
 */
export function isBuiltin(name: string): boolean {
  return BUILTINS.has(name) || (name.length > 4 && name.startsWith("__") && name.endsWith("__"));
}
