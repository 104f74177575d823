"""Fetches the CUDA 12 libraries ONNX Runtime's CUDA provider links against (cuBLAS, cuBLASLt, cudart) from
Maven Central (through the repository Maven itself resolves Central from), for a GPU host that has only CUDA 13 (the lent H100 here). Bytedeco's redistributable jars hold
them; HTTP range requests read the zip directory and then only the wanted entries, not the 2 GB jar.
The CUDA provider of onnxruntime_gpu 1.28 and 1.29 needs cudart >= 12.8 (cudaLibraryGetKernel); cuBLAS 12.6 has every symbol
it uses.  Usage: python3 fetch_cuda12.py OUT_DIR"""
import os, re, struct, subprocess, sys, tempfile, zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

def repository():
    """Where Maven resolves Central for this build: a mirror of central (or of everything) from the effective
    settings, else the build's own central repository, so proxies and mirrors configured for Maven apply here too."""
    with tempfile.NamedTemporaryFile(suffix=".xml") as f:
        subprocess.run(["mvn", "-B", "-q", "help:effective-settings", f"-Doutput={f.name}"], cwd=ROOT, check=True, capture_output=True)
        settings = open(f.name).read()
    for m in re.findall(r"<mirror>(.*?)</mirror>", settings, re.S):
        of = re.search(r"<mirrorOf>(.*?)</mirrorOf>", m).group(1)
        blocked = "<blocked>true</blocked>" in m
        if not blocked and any(p.strip() in ("*", "central") for p in of.split(",")):
            return re.search(r"<url>(.*?)</url>", m).group(1).rstrip("/")
    out = subprocess.run(["mvn", "-B", "-q", "help:evaluate", "-Dexpression=project.repositories[0].url", "-DforceStdout", "-pl", "plugin"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return re.sub(r"\x1b\[[0-9;]*m", "", out).strip().rstrip("/")

def sources(base):
    bytedeco = base + "/org/bytedeco"
    return [
        (f"{bytedeco}/cuda/12.6-9.5-1.5.11/cuda-12.6-9.5-1.5.11-linux-x86_64-redist.jar", ["libcublas.so.12", "libcublasLt.so.12"]),
        (f"{bytedeco}/cuda-redist/12.9-9.10-1.5.12/cuda-redist-12.9-9.10-1.5.12-linux-x86_64.jar", ["libcudart.so.12"]),
    ]

def fetch(url, a, b):
    return subprocess.run(["curl", "-sf", "-m", "900", "-r", f"{a}-{b}", url], capture_output=True, check=True).stdout

def size(url):
    head = subprocess.run(["curl", "-sfI", "-m", "60", url], capture_output=True, check=True, text=True).stdout
    return int(next(l.split(":")[1] for l in head.splitlines() if l.lower().startswith("content-length")))

def entries(url):
    n = size(url)
    tail = fetch(url, max(0, n - 200000), n - 1)
    i = tail.rfind(b"PK\x05\x06")
    cd_size, cd_off = struct.unpack_from("<II", tail, i + 12)
    cd = fetch(url, cd_off, cd_off + cd_size - 1)
    p, out = 0, {}
    while cd[p:p + 4] == b"PK\x01\x02":
        meth, = struct.unpack_from("<H", cd, p + 10)
        csize, usize, nl, el, cl = struct.unpack_from("<IIHHH", cd, p + 20)
        off, = struct.unpack_from("<I", cd, p + 42)
        out[os.path.basename(cd[p + 46:p + 46 + nl].decode())] = (meth, csize, usize, off)
        p += 46 + nl + el + cl
    return out

def main(dst):
    os.makedirs(dst, exist_ok=True)
    for url, names in sources(repository()):
        index = entries(url)
        for name in names:
            meth, csize, usize, off = index[name]
            nl, el = struct.unpack_from("<HH", fetch(url, off, off + 29), 26)
            data = fetch(url, off + 30 + nl + el, off + 30 + nl + el + csize - 1)
            data = zlib.decompress(data, -15) if meth == 8 else data
            assert len(data) == usize, name
            open(os.path.join(dst, name), "wb").write(data)
            print(f"{name}: {usize >> 20} MiB from {url.rsplit('/', 1)[1]}")

if __name__ == "__main__":
    main(sys.argv[1])
