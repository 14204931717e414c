"""harness/definitions.sh, read as the shell reads it: the one list of the
policies, topologies, workloads, CSV columns and counters."""
import os
import shlex

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness",
                    "definitions.sh")


def definitions(path=PATH):
    """harness/definitions.sh's NAME='value' lines, each value split in words."""
    with open(path, encoding="utf-8") as f:
        lex = shlex.shlex(f.read(), posix=True)
    lex.whitespace_split = True
    lex.commenters = "#"
    return {k: v.split() for k, v in (tok.split("=", 1) for tok in lex)}


DEFS = definitions()
