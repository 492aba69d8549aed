"""The one JIT policy of every compiled module (engines, heuristics, search): numba, cached.

* :func:`jit` is the decorator: cached on disk, GIL released, one compiled version per array
  types, and only entry points (functions called from Python) get machine code of their own:
  every other function is linked into the entry points that call it (:class:`LinkedCompiler`).
* The cache is numba's, with two fixes: a function's entry is stale when any source of its
  folder or of ``baralho/core`` changed (numba checks only the function's own file), and a
  damaged cache file (a run killed mid-write, a full disk) is recompiled with a warning instead
  of failing every later run (:class:`Cache`).
* :func:`kernel` compiles a function built at run time from a game's rules (the closures of
  ``core/batch.py``): its cache entry is named after the game and keyed by the game's sources,
  so it is compiled once per machine, not once per process (numba keys a closure by pickling
  the values it closes over, and a pickled dispatcher differs in every process).
"""

from __future__ import annotations

import functools
import hashlib
import warnings
from pathlib import Path

import numba as nb
from numba.core import caching
from numba.core import codegen as _codegen
from numba.core import types as _types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import AnalysisPass, register_pass
from numba.core.dispatcher import Dispatcher as _Dispatcher
from numba.core.typed_passes import AnnotateTypes
from numba.core.types import npytypes


def _record_mangling_args(self):
    return type(self).__name__, ("r" + hashlib.sha1(self.name.encode()).hexdigest()[:24],)


# numba names a compiled function after its argument types, and a record type by a per-process
# counter (Record._code): two record dtypes (two player counts, two decks) compiled in two processes
# can get one symbol name, and once both are loaded from the cache the second calls the first's code,
# at the first's field offsets (wrong masks, silently). Name a record by its layout instead (its
# name lists every field with its type and offset). Every fast module compiles through `jit` below,
# so the fix is in place before any of them compiles or loads.
npytypes.Record.mangling_args = property(_record_mangling_args)

_PACKAGE = Path(__file__).resolve().parents[1]
_CORE = Path(__file__).resolve().parent


#: the files a compiled function may be built from: its folder's modules and data (a deck.json
#: read into constants at import is compiled in as well)
_SOURCES = ("*.py", "*.json")


@functools.cache
def folder_stamp(folder: Path) -> tuple:
    """When each source of ``folder`` last changed (name, mtime, size), for numba's cache checks."""
    files = sorted(p for pattern in _SOURCES for p in folder.glob(pattern))
    return tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in files)


def _with_folder_stamps(base: type) -> type:
    """``base`` (a numba cache locator) for baralho's own functions, whose cache is out of date
    when any module of their folder or of ``baralho/core`` changes, not only their own file.

    numba checks only the stamp of the file a function is defined in ("cache invalidation fails
    to recognize changes in functions defined in a different file", numba's documented caching
    limitation): after an edit of ``fast_rules.py`` a cached ``fast.step_one``, which has
    ``fast_rules.apply`` compiled into it, kept running the old rules (and a constant imported
    from ``cards.py``, or read from ``deck.json``, is compiled in as well)."""

    class Locator(base):
        @classmethod
        def from_function(cls, py_func, py_file):
            if not Path(py_file).resolve().is_relative_to(_PACKAGE):
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            folder = Path(self._py_file).resolve().parent
            return super().get_source_stamp(), folder_stamp(folder), folder_stamp(_CORE)

    Locator.__name__ = Locator.__qualname__ = "Baralho" + base.__name__
    return Locator


# before any fast module decorates a function (each compiles through `jit` below, from here)
_CACHE_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl   # its name differs across numba versions
_CACHE_IMPL._locator_classes[:0] = [
    _with_folder_stamps(b) for b in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator,
                                     caching.UserWideCacheLocator)]

class _LinkedLibrary(_codegen.JITCodeLibrary):
    """The code of a kernel that only other compiled kernels call (no CPython or C wrapper).

    numba links every callee's module into its caller's and runs LLVM's module optimisation and
    machine code generation on the whole again there, so a kernel's own optimised module and
    machine code are work that nothing runs: each caller redoes it from the linked IR. This
    library keeps only numba's per-function passes and hands that IR to its callers, which
    optimise it once, with their own code (same O3 pipeline over the same linked functions:
    instructions per AEC step unchanged, measured with callgrind). It is never added to the JIT
    engine: there is no machine code, so no function pointer (none without a CPython wrapper
    anyway) and no environment global of its own to set (its callers' copies are set as for any
    callee they link, a cached caller's as well). Its cache entry is the IR a new caller links."""

    def _optimize_final_module(self):
        pass                                   # each caller optimises this code where it is linked

    def _finalize_final_module(self):
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True                 # not handed to the JIT engine: no machine code

    def serialize_using_object_code(self):
        return self.serialize_using_bitcode()  # no object code: the cache keeps the IR callers link

    @property
    def codegen(self):
        return _EnginelessCodegen(self._codegen)


class _EnginelessCodegen:
    """The JIT codegen as a :class:`_LinkedLibrary` shows it: numba's lowering sets a compiled
    function's environment in the JIT engine, where a linked-only library has nothing."""

    def __init__(self, codegen) -> None:
        self._codegen = codegen

    def __getattr__(self, name: str):
        return getattr(self._codegen, name)

    def set_env(self, env_name, env) -> None:
        pass


@register_pass(mutates_CFG=False, analysis_only=True)
class _LinkedLibraryPass(AnalysisPass):
    """Lowers the kernel into a :class:`_LinkedLibrary` (numba's lowering makes a plain one
    when the pipeline has none yet)."""

    _name = "baralho_linked_library"

    def __init__(self) -> None:
        AnalysisPass.__init__(self)

    def run_pass(self, state) -> bool:
        if state.library is None:
            state.library = _LinkedLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
            state.library.enable_object_caching()
        return False


class LinkedCompiler(CompilerBase):
    """numba's nopython pipeline, lowering into a :class:`_LinkedLibrary`."""

    def define_pipelines(self):
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.add_pass_after(_LinkedLibraryPass, AnnotateTypes)
        pm.finalize()
        return [pm]


#: the options of a kernel only compiled kernels call: no CPython or C wrapper (numba otherwise
#: generates, optimises, compiles and caches both for every function), and its module optimised
#: and compiled only inside its callers' (:class:`_LinkedLibrary`)
LINKED = dict(no_cpython_wrapper=True, no_cfunc_wrapper=True, pipeline_class=LinkedCompiler)
if not all(hasattr(_codegen.JITCodeLibrary, name) for name in (
        "_optimize_final_module", "_finalize_final_module", "_finalize_dynamic_globals",
        "_verify_declare_only_symbols", "serialize_using_bitcode")):   # a numba whose library differs:
    del LINKED["pipeline_class"]                                       # its own pipeline, slower to compile



def _plain(t):
    t = _types.unliteral(t)
    return _types.int64 if isinstance(t, _types.Integer) and t.signed else t


def jit(fn=None, *, entry: bool = False, **options):
    """The one decorator of every compiled module (engines, heuristics, search): cached on
    disk, releases the GIL, and compiles each function once per array types: a scalar argument
    is compiled as int64 (or bool) whatever a caller passes (a constant 0, an int8 field).
    numba otherwise compiles a version per literal and integer width at the call sites, and
    each version is re-optimised inside every caller: most of the empty-cache compile time.

    Only an ``entry`` (a function called from Python: the kernels ``core/batch.py`` builds, a
    heuristic's batch call) gets numba's CPython and C wrappers and machine code of its own;
    any other compiles with ``LINKED``: no wrappers (numba otherwise generates, optimises,
    compiles and caches both for every function) and its LLVM module optimised and compiled
    only inside the entry points that link it (:class:`_LinkedLibrary`). An entry that steps
    one env keeps the GIL (``nogil=False``): releasing and re-acquiring it costs more than the
    call's own work (about a microsecond of an AEC step, callgrind)."""
    if fn is None:
        return lambda f: jit(f, entry=entry, **options)
    if not entry:
        options = {**LINKED, **options}
    d = nb.njit(**{"nogil": True, **options})(fn)
    d._cache = Cache(d.py_func)                # numba's cache=True, with damaged entries recompiled
    if not entry:
        _compiled_callers_only(d)

    def get_call_template(args, kws):
        return _Dispatcher.get_call_template(d, tuple(map(_plain, args)), {k: _plain(v) for k, v in kws.items()})

    d.get_call_template = get_call_template
    return d


class _TolerantIndex(caching.IndexDataCacheFile):
    """numba's index and data files, where a damaged file reads as a missing one (with a warning):
    the function is compiled again and its entry rewritten."""

    def _load_index(self):
        try:
            return super()._load_index()
        except Exception as err:              # truncated or corrupted pickle: EOFError, UnpicklingError, ...
            _damaged(self._index_path, err)
            return {}

    def _load_data(self, name):
        try:
            return super()._load_data(name)
        except OSError:
            raise                             # numba's own handling: a removed file is a miss
        except Exception as err:
            _damaged(self._data_path(name), err)
            raise OSError(str(err)) from err  # load() turns an OSError into a miss


def _damaged(path: str, err: Exception) -> None:
    warnings.warn(f"baralho: numba cache file {path} is damaged ({type(err).__name__}: {err}); "
                  f"compiling again (the file is rewritten)", RuntimeWarning, stacklevel=3)


class Cache(caching.FunctionCache):
    """numba's function cache over :class:`_TolerantIndex` files."""

    def __init__(self, py_func) -> None:
        super().__init__(py_func)
        self._cache_file = _TolerantIndex(self._cache_path, self._impl.filename_base,
                                          self._impl.locator.get_source_stamp())


def is_cached(dispatcher, args: tuple) -> bool:
    """Whether calling ``dispatcher`` with ``args`` runs code already compiled in this process or
    in numba's cache (False: the call compiles first)."""
    sig = tuple(dispatcher.typeof_pyval(a) for a in args)
    if sig in dispatcher.overloads:
        return True
    cache = dispatcher._cache
    try:
        return cache._index_key(sig, dispatcher.targetctx.codegen()) in cache._cache_file._load_index()
    except Exception:               # a cache numba lays out otherwise: say nothing rather than fail
        return True


class KernelCache(Cache):
    """The cache of a kernel closure built for one game (``kernel``): keyed by the kernel's code
    and the game's sources (``stamp``), not by pickling what the closure holds."""

    def __init__(self, py_func, stamp: tuple) -> None:
        self._stamp = stamp
        super().__init__(py_func)

    def _index_key(self, sig, codegen):
        code = hashlib.sha256(self._py_func.__code__.co_code).hexdigest()
        return sig, codegen.magic_tuple(), (code, repr(self._stamp))


def kernel(fn, game: str, sources: tuple[Path, ...], **options):
    """Compile ``fn``, a closure over one game's compiled rules, as an entry point cached under
    ``<game>.<name>``, fresh while the sources of the folders ``sources`` are unchanged."""
    fn.__qualname__ = f"{game}.{fn.__name__}"
    d = nb.njit(**{"nogil": True, **options})(fn)
    d._cache = KernelCache(d.py_func, tuple(folder_stamp(f) for f in sources))
    return d


def linked(fn, **options):
    """Compile ``fn``, a closure that only a :func:`kernel` calls, into that kernel (``LINKED``);
    not cached itself: the kernel's cache entry holds its code."""
    return _compiled_callers_only(nb.njit(**{"nogil": True, **LINKED, **options})(fn))


def _compiled_callers_only(d):
    """A linked function has no Python entry (no CPython wrapper, no machine code of its own):
    called from Python, numba would jump to an address that does not exist (a segfault). Its
    versions are kept from numba's table of Python-callable versions, and a call from Python
    raises instead."""
    name = d.py_func.__qualname__

    def add_overload(cres):
        d.overloads[tuple(cres.signature.args)] = cres      # for compiled callers; never called from Python

    def refuse(*args, **kws):
        raise TypeError(f"{d.py_func.__module__}.{name} runs only inside compiled code (a numba function "
                        f"decorated with baralho.core.jit.jit calls it); it has no Python entry point")

    d.add_overload = add_overload
    d._compile_for_args = refuse
    return d
