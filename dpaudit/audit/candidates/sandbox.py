"""Confining a candidate's worker, so that the code under audit cannot reach into its auditor (Linux).

The worker runs as the auditor's user: without a fence, a candidate could ptrace the auditor and
set its exit status, write into its memory or its standard output through ``/proc``, signal it,
rewrite the report or dpaudit's own sources, or leave its process group and hop from pid to pid
faster than a kill can follow. Before it imports the candidate, the worker fences itself and
everything it will start (each fence is inherited across ``fork`` and ``exec``):

* ``no_new_privs``: no program it runs gains privileges (set-uid bits are ignored);
* **capabilities**: a worker running as root drops those that reach into other processes or the
  kernel (``CAP_SYS_PTRACE``, ``CAP_KILL``, ``CAP_SYS_ADMIN``, ...);
* **Landlock** (where the kernel has it): files may be written only beneath the worker's own
  temporary folder (its ``TMPDIR``) and ``/dev/shm``, and to ``/dev/null`` — not the report,
  not dpaudit, not ``/proc/PID/mem`` or ``/proc/PID/fd/1`` of any process; from Landlock ABI 6 on, no
  signal leaves the worker's processes;
* **seccomp**: ``ptrace``, ``process_vm_readv``/``writev``, ``setsid`` and ``setpgid`` fail with
  EPERM (so every process the candidate starts stays in the worker's process group, which one
  ``killpg`` ends at once), and so does a signal (``kill``, ``tgkill``, ``rt_sigqueueinfo``, a pidfd)
  aimed at the worker's ancestors or their threads (as they were when the fence went up), their
  process groups or every process (-1), and a file set to signal a process (``F_SETOWN``,
  ``FIOSETOWN``). Before Landlock ABI 6 (Linux 6.12), a thread the auditor starts later can still be
  signalled: the auditor then stops or dies, which fails the run, never passes it.

The auditor, for its part, is made non-dumpable (:func:`protect_the_auditor`): with
``CAP_SYS_PTRACE`` gone, no process of the same user may then trace it or open its ``/proc``
memory and descriptors. What applied is reported (:func:`confine` returns it), and a fence the
machine lacks (another architecture, an old kernel) is named there as missing rather than
pretended.

References:
    Linux man pages: prctl(2) (PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE), capabilities(7), seccomp(2),
    landlock(7) and the kernel's Documentation/userspace-api/landlock.rst (ABI versions 1-6).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import struct
import sys
from typing import Any

__all__ = ["confine", "limit_resources", "protect_the_auditor"]

_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38

#: Capabilities a worker running as root gives up: tracing (19), signalling anyone (5), administration
#: (21), modules (16), raw I/O (17), BPF (39) and performance monitoring (38).
_DROPPED_CAPABILITIES = (5, 16, 17, 19, 21, 38, 39)
_CAPABILITY_VERSION_3 = 0x20080522

#: Per architecture: its audit value, the seccomp(2) and Landlock syscall numbers, the syscalls that
#: always fail, and those that fail when their first argument (a pid) is an ancestor's.
_ARCHITECTURES = {
    "x86_64": {
        "audit": 0xC000003E,
        "seccomp": 317,
        "landlock": (444, 445, 446),
        # ptrace setpgid setsid tkill process_vm_readv process_vm_writev pidfd_send_signal io_uring_setup pidfd_getfd
        "denied": (101, 109, 112, 200, 310, 311, 424, 425, 438),
        "owner": (72, 16),  # fcntl, ioctl: the commands that make a file signal a process (F_SETOWN, FIOSETOWN)
        "aimed": (62, 129, 234, 297, 434),  # kill rt_sigqueueinfo tgkill rt_tgsigqueueinfo pidfd_open
    },
    "aarch64": {
        "audit": 0xC00000B7,
        "seccomp": 277,
        "landlock": (444, 445, 446),
        "denied": (117, 154, 157, 130, 270, 271, 424, 425, 438),
        "owner": (25, 29),
        "aimed": (129, 138, 131, 240, 434),
    },
}
#: The commands of fcntl and ioctl that make a file signal a process (F_SETOWN, F_SETOWN_EX; FIOSETOWN, SIOCSPGRP).
_OWNER_COMMANDS = ((8, 15), (0x8901, 0x8902))
_X32_BIT = 0x40000000
_RET_ALLOW, _RET_EPERM = 0x7FFF0000, 0x00050001
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC = 1, 1

#: Landlock's write rights (ABI 1), REFER (ABI 2) and TRUNCATE (ABI 3); the signal scope (ABI 6).
_LANDLOCK_WRITES = sum(1 << bit for bit in (1, 4, 5, 6, 7, 8, 9, 10, 11, 12))
_LANDLOCK_REFER, _LANDLOCK_TRUNCATE, _LANDLOCK_WRITE_FILE = 1 << 13, 1 << 14, 1 << 1
_LANDLOCK_SCOPE_SIGNAL = 2
_LANDLOCK_RULE_PATH_BENEATH = 1

_LINUX = sys.platform.startswith("linux")
_libc: Any = ctypes.CDLL(None, use_errno=True) if _LINUX else None


def protect_the_auditor() -> None:
    """Make this process non-dumpable: a candidate (same user, ``CAP_SYS_PTRACE`` dropped) can then
    neither trace it nor open its ``/proc`` memory or descriptors. Core dumps are off for it too."""
    if _libc is not None:
        _libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def limit_resources(memory_mib: int, file_bytes: int) -> None:
    """Limit the address space to ``memory_mib`` MiB and every file written to ``file_bytes`` bytes."""
    try:
        import resource
    except ImportError:  # not on POSIX: no limits available
        return
    limit = memory_mib * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))


def confine(writable: str) -> tuple[str, ...]:
    """Fence this process and all it will start (see the module docstring); ``writable`` is the one
    folder it may write in. Returns the fences that applied and those the machine lacks."""
    if _libc is None:
        return (f"no fence: the fences are Linux's, and this is {sys.platform}",)
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return ("no fence: prctl(PR_SET_NO_NEW_PRIVS) failed",)
    # the syscall table is the interpreter's: a 32-bit Python on a 64-bit kernel has another one
    arch = _ARCHITECTURES.get(platform.machine()) if struct.calcsize("P") == 8 else None
    steps = [_drop_capabilities]
    if arch is not None:
        steps += [lambda: _landlock(arch, writable), lambda: _seccomp(arch, _ancestors())]
    said = []
    for step in steps:
        try:
            said.append(step())
        except (OSError, AttributeError, ValueError) as exc:  # a libc or kernel without the call: said, not fatal
            said.append(f"a fence not set up ({type(exc).__name__}: {exc})")
    if arch is None:
        said.append(f"no seccomp or Landlock fence on {platform.machine()}")
    return tuple(said)


def _drop_capabilities() -> str:
    """Clear :data:`_DROPPED_CAPABILITIES` from the bounding, effective, permitted and inheritable sets."""
    header = ctypes.create_string_buffer(struct.pack("Ii", _CAPABILITY_VERSION_3, 0))
    data = ctypes.create_string_buffer(24)
    if _libc.capget(header, data) != 0:
        return "capabilities: unknown (capget failed)"
    words = list(struct.unpack("6I", data.raw))  # (effective, permitted, inheritable) for bits 0-31, then 32-63
    for bit in _DROPPED_CAPABILITIES:
        _libc.prctl(_PR_CAPBSET_DROP, bit, 0, 0, 0)
        for field in range(3):
            words[3 * (bit // 32) + field] &= ~(1 << (bit % 32)) & 0xFFFFFFFF
    if _libc.capset(header, struct.pack("6I", *words)) != 0:
        return "capabilities: not dropped (capset failed)"
    return "capabilities: tracing, signalling and administration dropped"


def _ancestors() -> tuple[set[int], set[int]]:
    """The pids from this process's parent up to init, with their threads' ids (a signal to a thread reaches its
    process), and their process groups (other than its own)."""
    pids, pid = set(), os.getppid()
    while pid > 0 and pid not in pids:
        pids.add(pid)
        with contextlib.suppress(OSError, ValueError):
            pids.update(int(thread) for thread in os.listdir(f"/proc/{pid}/task"))
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                text = handle.read()
            pid = int(text[text.rfind(b")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            break
    groups = set()
    for ancestor in pids:
        try:
            groups.add(os.getpgid(ancestor))
        except OSError:
            continue
    return pids, groups - {os.getpgid(0)}


def _seccomp(arch: dict, ancestors: tuple[set[int], set[int]]) -> str:
    """Install the filter: a foreign architecture or x32 call, a :data:`denied` syscall, or an
    ``aimed`` one whose first argument is an ancestor, a negated ancestor's group or -1, fails."""
    pids, groups = ancestors
    targets = sorted({pid & 0xFFFFFFFF for pid in pids} | {-group & 0xFFFFFFFF for group in groups} | {0xFFFFFFFF})
    code = [(_LD_W_ABS, 0, 0, 4), (_JEQ_K, 1, 0, arch["audit"]), (_RET_K, 0, 0, _RET_EPERM), (_LD_W_ABS, 0, 0, 0)]
    code += [(_JGE_K, 0, 1, _X32_BIT), (_RET_K, 0, 0, _RET_EPERM)]
    for number in arch["denied"]:
        code += [(_JEQ_K, 0, 1, number), (_RET_K, 0, 0, _RET_EPERM)]
    for number, commands in zip(arch["owner"], _OWNER_COMMANDS, strict=True):  # a signal by proxy: refused
        code += [(_JEQ_K, 0, len(commands) + 3, number), (_LD_W_ABS, 0, 0, 24)]  # the second argument's low word
        code += [(_JEQ_K, len(commands) - index, 0, command) for index, command in enumerate(commands)]
        code += [(_RET_K, 0, 0, _RET_ALLOW), (_RET_K, 0, 0, _RET_EPERM)]
    aimed = arch["aimed"]
    for index, number in enumerate(aimed):  # to the pid check below: past the other dispatches and the allow
        code.append((_JEQ_K, len(aimed) - index, 0, number))
    code += [(_RET_K, 0, 0, _RET_ALLOW), (_LD_W_ABS, 0, 0, 16)]  # the low word of the first argument
    for target in targets:
        code += [(_JEQ_K, 0, 1, target), (_RET_K, 0, 0, _RET_EPERM)]
    code.append((_RET_K, 0, 0, _RET_ALLOW))
    program = b"".join(struct.pack("HBBI", *instruction) for instruction in code)
    buffer = ctypes.create_string_buffer(program)
    fprog = struct.pack("HxxxxxxP", len(code), ctypes.addressof(buffer))
    flags = _SECCOMP_FILTER_FLAG_TSYNC  # every thread (numpy's BLAS threads too), not only this one
    if _libc.syscall(arch["seccomp"], _SECCOMP_SET_MODE_FILTER, flags, fprog) != 0:
        return f"seccomp: not installed ({os.strerror(ctypes.get_errno())})"
    return "seccomp: no tracing, no leaving the process group, no signal to an ancestor"


def _landlock(arch: dict, writable: str) -> str:
    """Allow writes beneath ``writable`` and ``/dev/shm`` (``/dev``: writing to existing files) only."""
    create, add_rule, restrict = arch["landlock"]
    abi = _libc.syscall(create, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        return "Landlock: not in this kernel (files anywhere the user may write stay writable)"
    handled = _LANDLOCK_WRITES | (_LANDLOCK_REFER if abi >= 2 else 0) | (_LANDLOCK_TRUNCATE if abi >= 3 else 0)
    fields = [handled] + ([0] if abi >= 4 else []) + ([_LANDLOCK_SCOPE_SIGNAL] if abi >= 6 else [])
    attribute = struct.pack(f"{len(fields)}Q", *fields)
    ruleset = _libc.syscall(create, attribute, len(attribute), 0)
    if ruleset < 0:
        return f"Landlock: not applied ({os.strerror(ctypes.get_errno())})"
    missing = []
    try:
        file_writes = _LANDLOCK_WRITE_FILE | (_LANDLOCK_TRUNCATE if abi >= 3 else 0)
        for path, rights in ((writable, handled), ("/dev/shm", handled), (os.devnull, file_writes)):
            try:
                place = os.open(path, os.O_PATH)
            except OSError:
                missing.append(path)
                continue
            try:
                rule = struct.pack("=Qi", rights, place)
                if _libc.syscall(add_rule, ruleset, _LANDLOCK_RULE_PATH_BENEATH, rule, 0) != 0:
                    missing.append(path)
            finally:
                os.close(place)
        if writable in missing:
            return "Landlock: not applied (its own folder could not be allowed)"
        if _libc.syscall(restrict, ruleset, 0) != 0:
            return f"Landlock: not applied ({os.strerror(ctypes.get_errno())})"
    finally:
        os.close(ruleset)
    signals = ", no signal leaves the candidate's processes" if abi >= 6 else ""
    also = f" (not allowed: {', '.join(missing)})" if missing else ""
    return f"Landlock ABI {abi}: writes only in the worker's temporary folder, /dev/shm and /dev/null{also}{signals}"
