"""Byte-level BPE tokenizer with GPT-2 pre-tokenisation (llama.cpp pre-tokenizer `gpt-2`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

from ghostbook.training.fim import EOT, FIM_MIDDLE, FIM_PAD, FIM_PREFIX, FIM_SUFFIX, SPECIAL_TOKENS


def new_tokenizer() -> Tokenizer:
    """An untrained byte-level BPE with the GPT-2 regex split and no prefix space."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return tok


def train_tokenizer(texts: Iterable[str], vocab_size: int = 4096, min_frequency: int = 2) -> Tokenizer:
    """Train on `texts`; the special tokens take ids 0..4 in the order of `SPECIAL_TOKENS`."""
    tok = new_tokenizer()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    return tok


def save_hf_tokenizer(tok: Tokenizer, out_dir: Path, model_max_length: int) -> None:
    """Write tokenizer.json plus the transformers config files (special tokens, no BOS)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    tok.save(str(out_dir / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_max_length": model_max_length,
        "bos_token": EOT,
        "eos_token": EOT,
        "unk_token": EOT,
        "pad_token": FIM_PAD,
        "add_bos_token": False,
        "add_eos_token": False,
        "additional_special_tokens": [FIM_PREFIX, FIM_SUFFIX, FIM_MIDDLE, FIM_PAD],
        "clean_up_tokenization_spaces": False,
    }
    (out_dir / "tokenizer_config.json").write_text(json.dumps(config, indent=2))
    special = {k: config[k] for k in ("bos_token", "eos_token", "unk_token", "pad_token")}
    special["additional_special_tokens"] = config["additional_special_tokens"]
    (out_dir / "special_tokens_map.json").write_text(json.dumps(special, indent=2))


def load_tokenizer(path: Path) -> Tokenizer:
    """Load `tokenizer.json` from a file or a model folder."""
    path = Path(path)
    return Tokenizer.from_file(str(path / "tokenizer.json" if path.is_dir() else path))


def special_ids(tok: Tokenizer) -> dict[str, int]:
    """Ids of the special tokens by name."""
    ids = {name: tok.token_to_id(name) for name in SPECIAL_TOKENS}
    missing = [k for k, v in ids.items() if v is None]
    if missing:
        raise ValueError(f"tokenizer lacks special tokens {missing}")
    return {k: int(v) for k, v in ids.items() if v is not None}
