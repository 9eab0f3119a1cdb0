# The part of cudadoctor's sitecustomize shims that every shim shares; the
# shim's own code follows it in the same file (internal/pyshim). It imports
# nothing heavy and never raises into the program.
import os
import sys


def _cudadoctor_chain():
    # Run the sitecustomize this file shadows, if any, as Python would have.
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        import importlib.machinery
        import importlib.util

        rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
        if spec is None or spec.loader is None:
            return
        mod = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = mod
        spec.loader.exec_module(mod)
    except Exception as exc:  # the chained file's own failure, reported like site.py does
        sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s\n" % (type(exc).__name__, exc))


def _cudadoctor_when_torch(on_torch):
    # Call on_torch(torch) once torch is imported: now if it already is,
    # else right after its import finishes, without importing it ourselves.
    if "torch" in sys.modules:
        on_torch(sys.modules["torch"])
        return

    import importlib.abc

    class TorchImportHook(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != "torch":
                return None
            try:
                sys.meta_path.remove(self)
            except ValueError:
                pass
            spec = None
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                spec = find(name, path, target)
                if spec is not None:
                    break
            if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
                return spec
            inner = spec.loader.exec_module

            def exec_module(module):
                inner(module)
                on_torch(module)

            try:
                spec.loader.exec_module = exec_module
            except Exception:
                pass
            return spec

    sys.meta_path.insert(0, TorchImportHook())
