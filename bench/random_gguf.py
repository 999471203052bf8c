"""A random Llama of Qwen2.5-0.5B's shape, exported to GGUF (Q8_0) by the project's own exporter: a model of
realistic size for `ghostbook bench edits` where none can be downloaded (its greedy copies through the
copy prompts' copy model, so the timing is real and the text is not).

    .venv/bin/python bench/random_gguf.py OUT_DIR
    .venv/bin/ghostbook bench edits --model OUT_DIR/ghostbook-fim-q8_0.gguf --cells 2 --threads 1
"""

import sys
from pathlib import Path

import torch
from ghostbook.models.catalog import default_model_path
from ghostbook.training.export import export_gguf
from ghostbook.training.model import ModelShape, build_model, llama_config
from ghostbook.training.tokenizer import special_ids
from tokenizers import Tokenizer


def main(out: Path) -> None:
    shipped = default_model_path()
    assert shipped is not None
    tok_path = shipped.parent / "tokenizer.json"
    tok = Tokenizer.from_file(str(tok_path))
    shape = ModelShape(vocab_size=tok.get_vocab_size(), hidden_size=896, intermediate_size=4864,
                       num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
                       max_position_embeddings=2048)
    special = special_ids(tok)
    torch.manual_seed(0)
    model = build_model(llama_config(shape, special))
    with torch.no_grad():  # random weights: special tokens never win
        model.model.embed_tokens.weight[list(special.values())] = 0.0
    print(f"{sum(p.numel() for p in model.parameters()) / 1e6:.0f}M parameters")
    print(export_gguf(model, tok_path, out, ["q8_0"]))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
