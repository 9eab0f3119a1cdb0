"""`python -m cudadoctor ARGS` runs the cudadoctor binary the wheel installed."""

import os
import sys

from cudadoctor import binary


def main():
    exe = binary()
    if exe is None:
        sys.exit("cudadoctor: the cudadoctor binary is not installed next to this Python package or on PATH")
    os.execv(exe, [exe, *sys.argv[1:]])


if __name__ == "__main__":
    main()
