#!/usr/bin/env python3
"""Where a guest that stopped talking is: each vCPU's registers, twice.

vm/run.sh runs this through QEMU's QMP socket shortly before it kills a
guest that outran its TIMEOUT.  A silent hang says nothing on the console
(no RCU stall, no lockup report when every CPU or QEMU itself is stuck), so
the snapshot is the only witness: per vCPU whether it is halted, its
instruction pointer and the kernel text addresses found on its stack, named
from System.map (the harness's kernels have no KASLR).  Two snapshots some
seconds apart tell a spinning guest from a frozen one.

Usage: hang-snapshot.py QMP_SOCKET SYSTEM_MAP [GAP_SECONDS]
Writes the report to standard output; exits 0 even when QEMU does not
answer (the report then says so), so that the kill still follows.
"""

import bisect
import json
import re
import socket
import sys
import time

STACK_WORDS = 96


class Qmp:
    """The few QMP exchanges this needs: HMP commands, answered in order."""

    def __init__(self, path, timeout=20):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        self._reply()  # the greeting
        self.call("qmp_capabilities")

    def _reply(self):
        while True:
            while b"\n" not in self.buf:
                data = self.sock.recv(65536)
                if not data:
                    raise ConnectionError("QMP socket closed")
                self.buf += data
            line, self.buf = self.buf.split(b"\n", 1)
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def call(self, command, **args):
        self.sock.sendall(json.dumps({"execute": command, "arguments": args}).encode() + b"\n")
        msg = self._reply()
        if "error" in msg:
            raise RuntimeError(f"{command}: {msg['error'].get('desc')}")
        return msg["return"]

    def hmp(self, line, cpu=None):
        args = {"command-line": line}
        if cpu is not None:
            args["cpu-index"] = cpu  # each call is a monitor of its own
        return self.call("human-monitor-command", **args)


class Symbols:
    """Text symbols of System.map, for naming addresses."""

    def __init__(self, path):
        pairs = []
        with open(path, encoding="ascii", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[1] in "tTwW":
                    pairs.append((int(parts[0], 16), parts[2]))
        pairs.sort()
        self.addrs = [a for a, _ in pairs]
        self.names = [n for _, n in pairs]
        self.lo = self.addrs[0] if pairs else 0
        etext = [a for a, n in pairs if n in ("_etext", "__end_rodata")]
        self.hi = etext[0] if etext else (self.addrs[-1] if pairs else 0)

    def name(self, addr):
        if not self.addrs or not self.lo <= addr < self.hi:
            return None
        i = bisect.bisect_right(self.addrs, addr) - 1
        return f"{self.names[i]}+{addr - self.addrs[i]:#x}"


def cpu_indices(info_cpus):
    """The vCPU numbers of "info cpus"."""
    return [int(m.group(1)) for m in re.finditer(r"CPU #(\d+):", info_cpus)]


def register(regs, name):
    m = re.search(rf"\b{name}=([0-9a-f]+)", regs, re.IGNORECASE)
    return int(m.group(1), 16) if m else None


def stack_text(words_dump, syms):
    """Kernel text addresses among the words of an "x/Ngx" dump."""
    found = []
    for line in words_dump.splitlines():
        for word in line.split(":", 1)[-1].split():
            try:
                name = syms.name(int(word, 16))
            except ValueError:
                continue
            if name:
                found.append(name)
    return found


def snapshot(qmp, syms):
    out = []
    info = qmp.hmp("info cpus")
    out.append(info.rstrip())
    for cpu in cpu_indices(info):
        regs = qmp.hmp("info registers", cpu)
        halted = register(regs, "HLT") == 1  # x86 only
        rip, rsp = register(regs, "[RE]IP"), register(regs, "[RE]SP")
        if rip is None:  # arm64
            rip, rsp = register(regs, "PC"), register(regs, "SP")
        where = syms.name(rip) if rip is not None else None
        out.append(f"vCPU {cpu}{' halted' if halted else ''}: "
                   f"ip {rip or 0:#x} {where or '(not kernel text)'}")
        if rsp:
            words = qmp.hmp(f"x/{STACK_WORDS}gx {rsp:#x}", cpu)
            text = stack_text(words, syms)
            out.append("  kernel text on its stack: " + (" < ".join(text) if text else "none"))
    return "\n".join(out)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.split("\n\n")[-2])
    path, system_map = sys.argv[1], sys.argv[2]
    gap = float(sys.argv[3]) if len(sys.argv) == 4 else 5.0
    try:
        syms = Symbols(system_map)
    except OSError as e:
        print(f"hang-snapshot: no symbols ({e}); addresses only")
        syms = Symbols("/dev/null")
    try:
        qmp = Qmp(path)
        print("== first look")
        print(snapshot(qmp, syms))
        time.sleep(gap)
        print(f"== {gap:g} s later")
        print(snapshot(qmp, syms))
    except (OSError, ConnectionError, RuntimeError, ValueError) as e:
        print(f"hang-snapshot: QEMU did not answer on {path}: {e}")


if __name__ == "__main__":
    main()
