#!/usr/bin/env python3
"""Which crates the dynamic loader's relocations patch, and how many pages of each: every
relocation of the binary (`readelf -rW`) is placed in the input section the linker put at its
address (the linker's map file), and counted under that section's crate. Each relocated page
is a copy-on-write page fault at every start of the program, and `.rela.dyn` itself (24 bytes
a relocation) is read whole; see docs/benchmarks.md, "A bridge process per event".

Usage:
  cargo rustc --release -p agent-hooks-cli --bin agent-hooks -- -C link-arg=-Wl,-Map=/tmp/ah.map
  python3 benches/relocations.py "$CARGO_TARGET_DIR/release/agent-hooks" /tmp/ah.map [TOP]
The map file is lld's format (rust-lld, the default linker on x86_64 Linux). Prints the total,
the pages it touches, then per crate: relocations, pages, crate (`<internal>`: the GOT).
"""

import bisect
import collections
import re
import subprocess
import sys

SECTION = re.compile(
    r"^\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+(\S.*):\((\.[^)]*)\)\s*$")


def crate(obj):
    """The crate an object file of the link belongs to."""
    m = re.search(r"lib([A-Za-z0-9_]+?)-[0-9a-f]{16}\.rlib", obj)
    if m:
        return m.group(1)
    m = re.search(r"/([A-Za-z0-9_]+)-[0-9a-f]{16}\.[^/]*\.o", obj)
    if m:
        return m.group(1)
    return obj.split("/")[-1][:40]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, mapfile = sys.argv[1], sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    ranges = []
    with open(mapfile, errors="replace") as f:
        for line in f:
            m = SECTION.match(line)
            if m and int(m.group(2), 16) > 0:
                ranges.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
    ranges.sort()
    starts = [r[0] for r in ranges]
    listing = subprocess.run(["readelf", "-rW", binary], capture_output=True, text=True,
                             check=True).stdout
    count = collections.Counter()
    pages = collections.defaultdict(set)
    for line in listing.splitlines():
        words = line.split()
        if len(words) < 3 or not re.fullmatch(r"[0-9a-f]{8,16}", words[0]):
            continue
        offset = int(words[0], 16)
        i = bisect.bisect_right(starts, offset) - 1
        name = "?"
        if i >= 0 and ranges[i][0] <= offset < ranges[i][0] + ranges[i][1]:
            name = crate(ranges[i][2])
        count[name] += 1
        pages[name].add(offset >> 12)
    touched = set().union(*pages.values()) if pages else set()
    print(f"{sum(count.values())} relocations on {len(touched)} pages")
    for name, n in count.most_common(top):
        print(f"{n:7d} {len(pages[name]):5d}  {name}")


if __name__ == "__main__":
    main()
