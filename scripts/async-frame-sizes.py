#!/usr/bin/env python3
"""Lists the frame (context) size of a Swift binary's async functions, largest first.

Swift emits an "async function pointer" for every async function (a symbol ending in `Tu`): a relative pointer to the
function, then the size of the context its caller allocates on the task's allocator for each call. A task keeps the
allocator's slabs until it ends, so the frames on a long-lived task's deepest call chain are memory held for as long
as that task runs (a reply, an event stream's connection).

Usage: scripts/async-frame-sizes.py BINARY [REGEX]   (REGEX filters the demangled names; default: every function)
Needs nm and readelf (binutils) and swift-demangle (the Swift toolchain).
"""
import re
import struct
import subprocess
import sys


def sections(binary):
    """The binary's sections that have addresses: (address, file offset, size)."""
    listing = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in listing.splitlines():
        match = re.match(r"\s*\[\s*\d+\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if match and int(match.group(1), 16) > 0:
            found.append(tuple(int(group, 16) for group in match.groups()))
    return found


def async_function_pointers(binary):
    """(address, mangled name) of every async function pointer symbol."""
    symbols = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    pointers = []
    for line in symbols.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2].endswith("Tu"):
            pointers.append((int(fields[0], 16), fields[2]))
    return pointers


def context_sizes(binary):
    """(context size, mangled name) of every async function pointer, read from the file."""
    with open(binary, "rb") as file:
        data = file.read()
    mapped = sections(binary)
    sizes = []
    for address, name in async_function_pointers(binary):
        for start, offset, size in mapped:
            if start <= address < start + size:
                position = offset + address - start
                _, context_size = struct.unpack("<iI", data[position:position + 8])
                sizes.append((context_size, name))
                break
    return sizes


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    binary = sys.argv[1]
    pattern = re.compile(sys.argv[2] if len(sys.argv) == 3 else "")
    sizes = context_sizes(binary)
    demangled = subprocess.run(["swift-demangle", "--simplified"], input="\n".join(name for _, name in sizes),
                               capture_output=True, text=True, check=True).stdout.splitlines()
    rows = sorted(zip((size for size, _ in sizes), demangled), key=lambda row: -row[0])
    for size, name in rows:
        name = name.removeprefix("async function pointer to ")
        if pattern.search(name) and not name.startswith("partial apply"):
            print(f"{size:6d}  {name}")


if __name__ == "__main__":
    main()
