#!/usr/bin/env python3
"""deploy/shared/cache_prune.py [--cache DIR] [--days N] [--yes]: lists, and with --yes removes, the entries of
faasbench's build cache (${FAASBENCH_CACHE:-/var/cache/faasbench}) that no current script names any more.

Every built part lives in an entry named <family>-<version>-<hash of what builds it> (deploy/kube/paths.sh), in
the cache's top folder or in images/, so a change to a build script or a pin builds a new entry and leaves the old
one behind: on the machine that ran every tier for a week, 13 GiB, and the real node's tier once failed on a full
disk. The scripts note each entry they name, each time they name it (deploy/kube/paths.sh fb_cache_used, and
imagebuild for its bases): a file of the entry's name in .used/ beside it. An entry is removed only when all of
these hold:
  - its name ends in a key (12 hex digits, then .tar or nothing): shared folders (src, m2, upstream, data,
    v2guest, base-static-1, ...) are never touched;
  - another entry of its family (the name up to its first version or key) was named more recently;
  - it was last named (its note, else its own last change) more than --days ago (7 unless given);
  - no one holds its lock (<entry>.lock, the lock a build takes while it makes the entry).
Without --yes nothing is removed: the list and the space it holds are printed. Exit 0, or 2 on bad input.
"""

import argparse
import fcntl
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass

KEY = re.compile(r"-[0-9a-f]{12}(\.tar)?$")
HEX12 = re.compile(r"^[0-9a-f]{12}$")
VERSION = re.compile(r"^v?[0-9]")
USED = ".used"


@dataclass
class Entry:
    folder: str  # the folder it is in, relative to the cache ("" or "images")
    name: str
    path: str
    last: float  # when a script last named it (epoch seconds)
    noted: bool  # last comes from a script's note, not from the entry's own time

    @property
    def rel(self):
        return os.path.join(self.folder, self.name) if self.folder else self.name


def family(name):
    """The entry's family: its name up to the first part that is a version or a key."""
    parts = re.sub(r"\.tar$", "", name).split("-")
    head = []
    for p in parts:
        if VERSION.match(p) or HEX12.match(p):
            break
        head.append(p)
    return "-".join(head) or name


def size_of(path):
    if os.path.islink(path) or not os.path.isdir(path):
        return os.lstat(path).st_size
    total = 0
    for root, dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def entries(cache, folder):
    """The keyed entries of cache/folder, each with when a script last named it."""
    base = os.path.join(cache, folder)
    if not os.path.isdir(base):
        return []
    out = []
    for name in sorted(os.listdir(base)):
        if name.startswith(".") or name.endswith(".lock") or not KEY.search(name):
            continue
        path = os.path.join(base, name)
        note = os.path.join(base, USED, name)
        try:
            last, noted = os.stat(note).st_mtime, True
        except FileNotFoundError:
            # no note (made before the scripts noted their entries): its own last change. Not its last read:
            # anything that reads the cache (du, a backup, this script's own sizes) would make it recent.
            last, noted = os.lstat(path).st_mtime, False
        out.append(Entry(folder, name, path, last, noted))
    return out


def stale(found, days, now):
    """The entries to remove: not the most recently named of their family, and named more than days ago."""
    fams = {}
    for e in found:
        fams.setdefault((e.folder, family(e.name)), []).append(e)
    out = []
    for group in fams.values():
        group.sort(key=lambda e: e.last, reverse=True)
        out += [e for e in group[1:] if now - e.last > days * 86400]
    return sorted(out, key=lambda e: e.rel)


def locked(path):
    """Whether someone holds path's lock (a build making it); a missing lock is free."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def remove(e):
    if os.path.isdir(e.path) and not os.path.islink(e.path):
        shutil.rmtree(e.path)
    else:
        os.unlink(e.path)
    base = os.path.dirname(e.path)
    for extra in (os.path.join(base, USED, e.name), e.path + ".lock"):
        try:
            os.unlink(extra)
        except FileNotFoundError:
            pass


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def main(argv=None):
    ap = argparse.ArgumentParser(prog="cache_prune.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=os.environ.get("FAASBENCH_CACHE") or "/var/cache/faasbench")
    ap.add_argument("--days", default="7", help="remove only entries last named more than this many days ago (7)")
    ap.add_argument("--yes", action="store_true", help="remove them (without it: only list them)")
    a = ap.parse_args(argv)
    try:
        days = float(a.days)
        if days < 0 or days != days:
            raise ValueError
    except ValueError:
        print(f"cache_prune: --days {a.days!r}: not a number of days, 0 or more", file=sys.stderr)
        return 2
    cache = os.path.realpath(a.cache)
    if cache == "/" or not os.path.isdir(cache):
        print(f"cache_prune: --cache {a.cache!r}: not a cache folder", file=sys.stderr)
        return 2
    now = time.time()
    found = entries(cache, "") + entries(cache, "images")
    drop = stale(found, days, now)
    total, skipped = 0, 0
    verb = "remove" if a.yes else "would remove"
    for e in drop:
        if locked(e.path + ".lock"):
            print(f"cache_prune: keep {e.rel}: its lock is held (a build is making it)")
            skipped += 1
            continue
        size = size_of(e.path)
        total += size
        how = "named" if e.noted else "changed"
        print(f"cache_prune: {verb} {e.rel} ({human(size)}; last {how} {time.strftime('%Y-%m-%d %H:%M', time.localtime(e.last))}; "
              f"family {family(e.name)} has a newer entry)")
        if a.yes:
            remove(e)
    print(f"cache_prune: {cache}: {len(found)} keyed entries, {len(drop) - skipped} {'removed' if a.yes else 'to remove'} "
          f"({human(total)}), older than {a.days} day(s) and not the newest of their family"
          + ("" if a.yes or not drop else "; --yes removes them (make cache-prune YES=1)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
