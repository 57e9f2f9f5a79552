"""NVIDIA Xid codes and other kernel-log events, mapped to the shared cause taxonomy.

:data:`XID` maps each Xid code to ``(component, category, interrupts, cause)``:

* ``component`` and ``category`` use the names of Table 5 of "The Llama 3
  Herd of Models" (Meta, 2024, arXiv 2407.21783): components such as
  "Faulty GPU", "GPU HBM3 Memory", "GPU System Processor", categories "GPU",
  "Host", "Network", "Dependency", "Unknown"; so a cluster's rates by
  category sit beside the published fleets (NVLink, which Table 5 does not
  name, is a GPU component here);
* ``interrupts`` says whether the event stops a training job for a reason
  outside the job: hardware faults (79 off the bus, 48 double-bit ECC,
  74 NVLink, 94/95 contained/uncontained ECC, 119/120 GSP) do; errors of the
  application itself (13, 31, 43, 45, 69...) and corrected or recorded
  events (63 row remapping, 92 high single-bit rate) do not;
* ``cause`` is a short description in relmodel's words.

Source of the meanings: NVIDIA, "Xid Errors" and the Xid catalogue
("Analyzing Xid Errors with the Xid Catalog",
https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html), whose
resolution buckets (RESTART_APP, RESET_GPU, RESTART_BM...) decide
``interrupts``; an application fault is a RESTART_APP event that the
catalogue attributes to the user's program.  Codes missing here are read as
"unknown Xid N" (category "Unknown", counted as interruptions) and listed in
``problems()``.

:data:`KERNEL_EVENTS` covers kernel lines other than Xid that stop jobs:
NIC link down, uncorrected memory errors reported by EDAC, power-supply
faults, kernel panics and unexpected reboots.
"""

import re

import pandas as pd


__all__ = ["XID", "KERNEL_EVENTS", "BURST_WINDOW", "MAX_REPAIR", "xid_table", "classify_xid", "cause_mix"]

BURST_WINDOW = "5min"  #: Xid lines of one GPU closer than this are one incident (default of read_xid)
MAX_REPAIR = "3d"  #: a boot later than this after an outage does not close it (default of read_xid)

_GPU, _HBM, _GSP = "Faulty GPU", "GPU HBM3 Memory", "GPU System Processor"
_APP = ("Software Bug", "Dependency", False)

#: Xid code -> (component, category, interrupts a job, cause); see the module docstring for the source.
XID = {
    8: (*_APP, "GPU stopped processing (channel idle timeout)"),
    13: (*_APP, "graphics engine exception in the application"),
    31: (*_APP, "GPU memory page fault in the application"),
    32: (*_APP, "invalid or corrupted push buffer stream"),
    38: (_GSP, "GPU", True, "driver firmware error"),
    43: (*_APP, "GPU stopped processing the application's channel"),
    45: (*_APP, "preemptive cleanup after earlier errors"),
    48: (_HBM, "GPU", True, "double-bit ECC error"),
    61: (_GSP, "GPU", False, "micro-controller breakpoint or warning"),
    62: (_GSP, "GPU", True, "micro-controller halt"),
    63: (_HBM, "GPU", False, "row remapping or page retirement recorded"),
    64: (_HBM, "GPU", True, "row remapping or page retirement could not be recorded"),
    68: (*_APP, "video decoder exception"),
    69: (*_APP, "graphics engine class error"),
    74: ("NVLink", "GPU", True, "NVLink error"),
    79: (_GPU, "GPU", True, "GPU has fallen off the bus"),
    92: (_HBM, "GPU", False, "high single-bit ECC error rate (corrected)"),
    94: (_HBM, "GPU", True, "contained ECC error"),
    95: (_HBM, "GPU", True, "uncontained ECC error"),
    109: (*_APP, "context switch timeout"),
    119: (_GSP, "GPU", True, "GSP RPC timeout"),
    120: (_GSP, "GPU", True, "GSP error"),
    121: ("NVLink", "GPU", False, "chip-to-chip link corrected error"),
    140: (_HBM, "GPU", True, "unrecovered ECC error"),
    143: (_GPU, "GPU", True, "GPU initialisation failure"),
    154: (_GPU, "GPU", False, "GPU recovery action changed (notice)"),
}

#: Other kernel lines that stop jobs: name -> (pattern, component, category, cause).
KERNEL_EVENTS = {
    "nic_down": (re.compile(r"\b(?:NIC )?[Ll]ink (?:is )?[Dd]own\b"), "NIC", "Host", "NIC link down"),
    "edac_ue": (re.compile(r"EDAC\b.*\b(?:UE|[Uu]ncorrect(?:ed|able))\b"), "System Memory", "Host",
                "uncorrected host memory error (EDAC)"),
    "psu": (re.compile(r"[Pp]ower [Ss]upply\b.*\b(?:[Ff]ail\w*|[Ff]ault|[Ll]ost|AC lost)\b"), "Power Supply", "Host",
            "power supply fault"),
    "panic": (re.compile(r"Kernel panic - not syncing"), "Server Chassis", "Host", "kernel panic"),
}
#: A kernel boot line; a boot with no clean shutdown before it is an unexpected reboot.
BOOT = re.compile(r"\bLinux version \d")
SHUTDOWN = re.compile(r"\breboot: (?:Restarting system|Power down)|systemd-shutdown")
REBOOT = ("Server Chassis", "Host", "unexpected reboot")


def classify_xid(code):
    """``(component, category, interrupts, cause)`` of an Xid code; unknown codes are "unknown Xid N".

    Examples
    --------
    >>> classify_xid(79)
    ('Faulty GPU', 'GPU', True, 'GPU has fallen off the bus')
    >>> classify_xid(999)
    ('unknown Xid 999', 'Unknown', True, 'unknown Xid 999')
    """
    code = int(code)
    if code in XID:
        return XID[code]
    return (f"unknown Xid {code}", "Unknown", True, f"unknown Xid {code}")


def xid_table():
    """:data:`XID` as a DataFrame: xid, component, category, interrupts, cause.

    Examples
    --------
    >>> t = xid_table()
    >>> sorted(t[t["interrupts"]]["xid"])[:6]
    [38, 48, 62, 64, 74, 79]
    """
    return pd.DataFrame([(k, *v) for k, v in sorted(XID.items())],
                        columns=["xid", "component", "category", "interrupts", "cause"])


def cause_mix(source):
    """Interruptions of ``source`` by cause category beside Llama 3's 54-day mix (Table 5, the bundled counts).

    ``source`` has a "category" cause column in the shared taxonomy (as
    :func:`~relmodel.data.formats.kernlog.read_xid` gives).  Returns a DataFrame:
    category, count, share (a fraction of this log's interruptions),
    llama3_count, llama3_share; one row per category of either, largest first.

    Examples
    --------
    >>> from relmodel.data.formats.kernlog import read_xid
    >>> log = read_xid("Mar  1 00:00:00 a kernel: NVRM: Xid (PCI:0000:01:00): 79, off the bus\\n", year=2024)
    >>> row = cause_mix(log).iloc[0]
    >>> row["category"], int(row["count"]), int(row["llama3_count"])   # Llama 3: 148+72+19+17+6+6 GPU
    ('GPU', 1, 268)
    """
    from ..bundled.datasets import llama3_54day
    if "category" not in getattr(source, "cause_columns", ()):
        from ...errors import MissingColumnError
        raise MissingColumnError(f"{getattr(source, 'name', 'log')}: no 'category' cause column in the shared taxonomy; "
                                 "read a kernel log with read_xid")
    mine = source.interruptions()["category"].value_counts()
    ref = llama3_54day().counts.groupby("category")["count"].sum()
    out = pd.DataFrame({"count": mine, "llama3_count": ref}).fillna(0).astype(int)
    out["share"] = out["count"] / max(int(out["count"].sum()), 1)
    out["llama3_share"] = out["llama3_count"] / int(out["llama3_count"].sum())
    out = out.rename_axis("category").reset_index()
    out = out.sort_values(["count", "llama3_count"], ascending=False, kind="stable").reset_index(drop=True)
    return out[["category", "count", "share", "llama3_count", "llama3_share"]]
