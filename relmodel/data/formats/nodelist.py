"""Slurm host lists: ``gpu[0001-0233,0235-0513]`` to node names, and back.

A host list is a comma-separated list of names, each of which may hold one
or more bracket groups of numbers and ranges (``rack[1-2]-node[01-04]`` is
eight names).  Zero padding is kept: ``gpu[008-010]`` gives ``gpu008``,
``gpu009``, ``gpu010``.  Slurm's own notation is described in its
``Slurm::Hostlist`` manual page (the "tux[0-5,12,20-25]" form).
"""

import itertools
import re

from ...errors import LogFormatError

__all__ = ["expand_nodelist", "count_nodelist", "compress_nodelist", "MAX_NODES"]

MAX_NODES = 10_000_000  # one host list never names more nodes than this
_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def _split_top(text):
    """Split at commas outside brackets; raise on unbalanced brackets."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "[":
            depth += 1
            if depth > 1:
                raise LogFormatError(f"node list {text!r}: brackets inside brackets; write "
                                     "prefix[1-4,7] with one level of brackets")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise LogFormatError(f"node list {text!r}: ']' without '['")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise LogFormatError(f"node list {text!r}: '[' without ']'")
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _numbers(group, text):
    """The numbers of one bracket group ("0001-0003,7") as zero-padded strings."""
    out = []
    for item in group.split(","):
        m = _RANGE.match(item.strip())
        if not m:
            raise LogFormatError(f"node list {text!r}: cannot read {item!r} inside brackets; use "
                                 "numbers and ranges such as [1-4,7]")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        if int(hi) < int(lo):
            raise LogFormatError(f"node list {text!r}: range {item!r} runs backwards; write low-high")
        if int(hi) - int(lo) >= MAX_NODES:
            raise LogFormatError(f"node list {text!r}: range {item!r} names more than {MAX_NODES:,} nodes")
        width = len(lo) if lo.startswith("0") and len(lo) > 1 else 0
        if width:
            out.extend(f"{i:0{width}d}" for i in range(int(lo), int(hi) + 1))
        else:
            out.extend(map(str, range(int(lo), int(hi) + 1)))
    return out


def _expand_one(name, text):
    pieces = re.split(r"\[([^\]]*)\]", name)  # text, group, text, group, ..., text
    literal, groups = pieces[0::2], pieces[1::2]
    if not groups:
        return [name]
    size = 1
    choices = []
    for g in groups:
        nums = _numbers(g, text)
        size *= len(nums)
        if size > MAX_NODES:
            raise LogFormatError(f"node list {text!r} names more than {MAX_NODES:,} nodes")
        choices.append(nums)
    if len(choices) == 1:  # the common case, one bracket group
        head, tail = literal
        return [head + num + tail for num in choices[0]]
    out = []
    for combo in itertools.product(*choices):
        out.append("".join(lit + num for lit, num in zip(literal, combo)) + literal[-1])
    return out


def expand_nodelist(text):
    """Node names of a Slurm host list, in order; ``None``, "" and "None" give ``[]``.

    Returns a list of node names (strings).

    Examples
    --------
    >>> expand_nodelist("gpu[0001-0003,0007]")
    ['gpu0001', 'gpu0002', 'gpu0003', 'gpu0007']
    >>> expand_nodelist("a[1-2]b[08-09],login1")
    ['a1b08', 'a1b09', 'a2b08', 'a2b09', 'login1']
    """
    if text is None:
        return []
    text = str(text).strip()
    if text in ("", "None", "None assigned", "(null)"):
        return []
    names = []
    for part in _split_top(text):
        names.extend(_expand_one(part, text))
        if len(names) > MAX_NODES:
            raise LogFormatError(f"node list {text[:60]!r} names more than {MAX_NODES:,} nodes")
    return names


def count_nodelist(text):
    """Number of nodes a host list names.

    Examples
    --------
    >>> count_nodelist("gpu[0001-0233,0235-0513]")
    512
    """
    return len(expand_nodelist(text))


_NAME = re.compile(r"^(.*?)(\d+)$")


def compress_nodelist(names):
    """A host list naming ``names`` (the inverse of :func:`expand_nodelist`; order by prefix and number).

    Returns one string naming the same nodes.

    Examples
    --------
    >>> compress_nodelist(["gpu0001", "gpu0002", "gpu0003", "gpu0007", "login1"])
    'gpu[0001-0003,0007],login1'
    """
    groups, plain = {}, []
    for n in dict.fromkeys(names):
        m = _NAME.match(n)
        if not m or "[" in n:
            plain.append(n)
            continue
        prefix, num = m.groups()
        groups.setdefault((prefix, len(num)), []).append(int(num))  # same digit count: one padded group
    parts = []
    for (prefix, width), nums in sorted(groups.items()):
        nums = sorted(set(nums))
        if len(nums) == 1:
            parts.append(prefix + str(nums[0]).zfill(width))
            continue
        runs, lo = [], nums[0]
        for a, b in zip(nums, nums[1:] + [None]):
            if b != a + 1:
                runs.append(str(lo).zfill(width) + ("" if lo == a else "-" + str(a).zfill(width)))
                lo = b
        parts.append(f"{prefix}[{','.join(runs)}]")
    return ",".join(parts + plain)
