#!/usr/bin/env bash
# Train Ghostbook's FIM model on a lent GPU machine in one call, and bring the model back.
#
# That machine has python3 with torch, transformers, tokenizers, numpy and tqdm, no network and no
# ghostbook install: the training code runs from this checkout (PYTHONPATH), the data comes packed.
#
# Here, once:   ghostbook train pack-data --work ~/.cache/ghostbook/train --out .gpu   (~25 MB, git-ignored)
# There:        the device tool's `run` with command `bash notebook/ghostbook/training/gpu_train.sh`,
#               carry [".gpu"], timeout_s 600 (MINUTES=7 leaves time for start-up, compile and packing)
# Back here:    ghostbook train unpack-model --work .gpu --from <the run's files_at folder>
#               ghostbook train export --work .gpu
#               ghostbook eval .gpu/export/ghostbook-fim-q8_0.gguf --tasks single multi
#               ghostbook train ship --work .gpu --preset gpu      (if it beats the shipped model)
#
# Knobs (environment): WORK (.gpu), PRESET (gpu), MINUTES (7), WORKERS (12), OUT (set by the device tool),
# DEVICE (cuda), COMPILE (--compile) and PYTHON (python3): tests/training/test_train_pack.py runs this
# script on the CPU.
set -euo pipefail
WORK=${WORK:-.gpu}
PRESET=${PRESET:-gpu}
MINUTES=${MINUTES:-7}
OUT=${OUT:-$WORK/out}
DEVICE=${DEVICE:-cuda}
PYTHON=${PYTHON:-python3}
COMPILE=${COMPILE---compile}
mkdir -p "$OUT"
export PYTHONPATH="$PWD/notebook${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
export TQDM_MININTERVAL=30  # a progress line every 30 s, not a screenful
"$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda:", torch.cuda.is_available() and torch.cuda.get_device_name())'
"$PYTHON" -m ghostbook.training.cli run --work "$WORK" --preset "$PRESET" --device "$DEVICE" $COMPILE --threads 4 \
  --workers "${WORKERS:-12}" --budget-minutes "$MINUTES" --ckpt-every 1000
"$PYTHON" -m ghostbook.training.cli pack-model --work "$WORK" --out "$OUT"
cp "$WORK/run/log.jsonl" "$OUT/log.jsonl"
tail -n 3 "$OUT/log.jsonl"
