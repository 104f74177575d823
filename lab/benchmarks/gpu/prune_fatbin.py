"""Zero the payload of every fatbin entry not built for sm_<keep> in an ELF shared library, so the file
compresses to what one GPU needs. Containers without an entry for that arch are left whole."""
import struct, sys
MAGIC = 0xBA55ED50
def sections(buf):
    shoff, = struct.unpack_from("<Q", buf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", buf, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", buf, shoff + i * shentsize) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    out = {}
    for h in hdrs:
        name = buf[stroff + h[0]: buf.index(b"\0", stroff + h[0])].decode()
        out[name] = (h[4], h[5])
    return out
def prune(path, dst, keep):
    buf = bytearray(open(path, "rb").read())
    secs = sections(buf)
    kept = zeroed = containers = whole = 0
    for name in (".nv_fatbin", "__nv_relfatbin"):
        if name not in secs: continue
        off, size = secs[name]
        p, end = off, off + size
        while p + 16 <= end:
            magic, ver, hsz, fsz = struct.unpack_from("<IHHQ", buf, p)
            if magic != MAGIC:
                p += 8; continue
            containers += 1
            q, cend = p + hsz, p + hsz + fsz
            entries = []
            while q < cend:
                kind, ev, ehs, padded = struct.unpack_from("<HHII", buf, q)
                arch, = struct.unpack_from("<I", buf, q + 28)
                entries.append((q, ehs, padded, arch, kind))
                q += ehs + padded
            if not any(a == keep and k == 2 for _, _, _, a, k in entries):
                whole += 1
                p = cend; continue
            for q, ehs, padded, arch, kind in entries:
                if arch == keep: kept += padded; continue
                buf[q + ehs: q + ehs + padded] = bytes(padded); zeroed += padded
            p = cend
    open(dst, "wb").write(buf)
    print(f"{path}: {containers} containers ({whole} without sm_{keep}, left whole), kept {kept>>20} MiB, zeroed {zeroed>>20} MiB")
if __name__ == "__main__":
    prune(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 90)
