recording = None


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=0):
    global recording
    recording = {"max_entries": max_entries, "stacks": stacks}


def _snapshot():
    frame = {"name": "<module>", "filename": "/work/train.py", "line": 3}
    oom = {"action": "oom", "size": 1024, "device_free": 0, "stream": 0, "time_us": 1, "frames": [frame]}
    return {"segments": [], "device_traces": [[oom]], "allocator_settings": {"expandable_segments": False}}
