# Installed by cudadoctor (run --memory-snapshot): records the CUDA memory
# history of this process once CUDA starts, and writes a memory snapshot when
# an allocation fails. It never imports torch itself and never raises: a
# program that does not use torch is not affected.
def _cudadoctor_install():
    out_dir = os.environ.get("CUDADOCTOR_MEMORY_SNAPSHOT_DIR")
    if not out_dir:
        return
    try:
        max_entries = int(os.environ.get("CUDADOCTOR_MEMORY_MAX_ENTRIES", "100000"))
    except ValueError:
        max_entries = 100000
    stacks = os.environ.get("CUDADOCTOR_MEMORY_STACKS", "python")
    at_exit = os.environ.get("CUDADOCTOR_MEMORY_SNAPSHOT_AT_EXIT") == "1"
    state = {"dumps": 0, "recording": False}

    def warn(msg):
        try:
            sys.stderr.write("cudadoctor: %s\n" % msg)
        except Exception:
            pass

    def dump(reason):
        torch = sys.modules.get("torch")
        if torch is None or state["dumps"] >= 3:
            return
        state["dumps"] += 1
        rank = os.environ.get("RANK")
        name = "%s%s_pid%d_%d.pickle" % (reason, "_rank" + rank if rank else "", os.getpid(), state["dumps"])
        final = os.path.join(out_dir, name)
        tmp = final + ".partial"
        try:
            import pickle

            snap = torch.cuda.memory._snapshot()
            with open(tmp, "wb") as f:
                pickle.dump(snap, f, protocol=4)
            # The analyser looks for *.pickle: rename only once complete.
            os.replace(tmp, final)
        except Exception as exc:
            warn("could not write a memory snapshot: %s" % exc)

    def on_oom(device, alloc, device_allocated, device_free):
        dump("oom")

    def start():
        torch = sys.modules.get("torch")
        if torch is None or state["recording"]:
            return
        try:
            try:
                torch.cuda.memory._record_memory_history(max_entries=max_entries, stacks=stacks)
            except TypeError:
                # PyTorch 2.0 spelled the options differently.
                torch.cuda.memory._record_memory_history(True, trace_alloc_max_entries=max_entries, trace_alloc_record_context=True)
            torch._C._cuda_attach_out_of_memory_observer(on_oom)
            state["recording"] = True
        except Exception as exc:
            warn("could not record the CUDA memory history: %s" % exc)

    def on_torch(torch):
        try:
            # Queued until CUDA initialises (or run now if it already has):
            # starting CUDA at import would change the program's behaviour.
            torch.cuda._lazy_call(start)
        except Exception as exc:
            warn("could not hook CUDA initialisation: %s" % exc)

    if at_exit:
        import atexit

        def exit_dump():
            if state["recording"]:
                dump("exit")

        atexit.register(exit_dump)

    _cudadoctor_when_torch(on_torch)


_cudadoctor_chain()
try:
    _cudadoctor_install()
except Exception as _exc:
    sys.stderr.write("cudadoctor: memory snapshot capture disabled: %s\n" % _exc)
