# Installed by cudadoctor run for its in-place re-run. Once the program
# imports torch, it switches on autograd anomaly detection and notes every
# tensor an operation changes in place (its version counter moves); when
# backward fails because a saved tensor was modified in place, it prints the
# line of the write that modified it:
#   cudadoctor: in-place write: File "PATH", line N, in FUNC
# It never imports torch itself and never raises into the program.
_MARK = "cudadoctor: in-place write: "
_MAX_WRITES = 20000


def _cudadoctor_install():
    if os.environ.get("CUDADOCTOR_ANOMALY") != "1":
        return
    import collections
    import re

    writes = collections.deque(maxlen=_MAX_WRITES)
    state = {"reported": False, "skip": ()}
    here = os.path.abspath(__file__)
    msg_re = re.compile(
        r"modified by an inplace operation: \[\S+ \[([0-9, ]*)\]\](?:, which is output \d+ of (\w+),)? "
        r"is at version (\d+); expected version (\d+)"
    )

    def warn(msg):
        try:
            sys.stderr.write("cudadoctor: %s\n" % msg)
        except Exception:
            pass

    def user_frame():
        # The innermost frame outside torch and this file: the user's line
        # (a module's forward, a training loop), not torch's own code.
        f = sys._getframe(1)
        while f is not None:
            fn = f.f_code.co_filename
            if fn != here and not fn.startswith(state["skip"]) and not fn.startswith("<"):
                return (fn, f.f_lineno, f.f_code.co_name)
            f = f.f_back
        return None

    def name(gf):
        return type(gf).__name__ if gf is not None else ""

    def report(exc):
        if state["reported"]:
            return
        m = msg_re.search(str(exc))
        if m is None:
            return
        state["reported"] = True
        shape, fn_name, expected = m.group(1).replace(" ", ""), m.group(2) or "", int(m.group(4))
        best, best_score = None, -1
        for w in writes:
            vb, va, gf, base_gf, shp, base_shp, where = w
            if not (vb <= expected < va) or where is None:
                continue
            score = 0
            if fn_name and fn_name in (gf, base_gf):
                score += 2
            if shape in (shp, base_shp):
                score += 1
            if score >= best_score:  # the latest of equals: nearest the failure
                best, best_score = w, score
        if best is None:
            warn("no in-place write recorded matches the saved tensor")
            return
        fn, line, func = best[6]
        sys.stderr.write('%sFile "%s", line %d, in %s\n' % (_MARK, fn, line, func))
        sys.stderr.flush()

    def on_torch(torch):
        try:
            torch.autograd.set_detect_anomaly(True)
        except Exception as exc:
            warn("could not switch on anomaly detection: %s" % exc)
        try:
            state["skip"] = (os.path.dirname(os.path.abspath(torch.__file__)) + os.sep,)
            install_mode(torch)
        except Exception as exc:
            warn("could not watch in-place writes: %s" % exc)

    def install_mode(torch):
        from torch.overrides import TorchFunctionMode

        Tensor = torch.Tensor
        backward_calls = (Tensor.backward, torch.autograd.backward, torch.autograd.grad)

        def watched(args, kwargs):
            out = []
            for a in args:
                if isinstance(a, Tensor):
                    out.append(a)
                elif isinstance(a, (list, tuple)):
                    out.extend(x for x in a if isinstance(x, Tensor))
            o = kwargs.get("out") if kwargs else None
            if isinstance(o, Tensor):
                out.append(o)
            elif isinstance(o, (list, tuple)):
                out.extend(x for x in o if isinstance(x, Tensor))
            return out

        class InplaceWatch(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                if func in backward_calls:
                    try:
                        return func(*args, **kwargs)
                    except RuntimeError as exc:
                        report(exc)
                        raise
                before = None
                try:
                    before = [(t, t._version, t.grad_fn, t._base) for t in watched(args, kwargs)]
                except Exception:
                    pass
                result = func(*args, **kwargs)
                if before:
                    try:
                        for t, v, gf, base in before:
                            va = t._version
                            if va != v:
                                base_gf = name(base.grad_fn) if base is not None else ""
                                base_shp = ",".join(str(d) for d in base.shape) if base is not None else ""
                                writes.append((v, va, name(gf), base_gf, ",".join(str(d) for d in t.shape), base_shp, user_frame()))
                    except Exception:
                        pass
                return result

        InplaceWatch().__enter__()

    prev_hook = sys.excepthook

    def excepthook(typ, exc, tb):
        # backward called another way than the ones watched above.
        try:
            report(exc)
        except Exception:
            pass
        prev_hook(typ, exc, tb)

    sys.excepthook = excepthook

    _cudadoctor_when_torch(on_torch)


_cudadoctor_chain()
try:
    _cudadoctor_install()
except Exception as _exc:
    sys.stderr.write("cudadoctor: in-place tracing disabled: %s\n" % _exc)
