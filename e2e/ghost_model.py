"""A tiny deterministic GGUF for the ghost-text e2e tests (until, and besides, the shipped model).

A random model (tests/models/conftest.py) mostly loops on one token, and the server's filters rightly
drop loops, so a random model rarely shows ghost text. This one is built the same way (the training
pipeline's tokenizer, Llama model and GGUF writer) but with weights set by hand so that greedy decoding
walks a long cycle of identifier tokens: the layers add nothing (zero output projections), the
embedding is the identity and the output matrix maps each token to the next one in the cycle. So every
suggestion is real llama.cpp inference that yields a line of words and operators like
" width + sorted_key or value", never a loop, never a newline: enough to test showing, streaming,
typing through and accepting.
"""

from __future__ import annotations

import builtins
import keyword
import random
import re
import sysconfig
from pathlib import Path

TEXTS_FROM = ["textwrap.py", "string.py", "bisect.py", "heapq.py"]
WORD = re.compile(r"^ [A-Za-z_][A-Za-z0-9_]{1,}$")  # with its space: words never glue together
OPERATORS = {" +", " -", " *", " and", " or", " is", " in", " <", " >", " ==", " /", " %"}


def build_cycle_gguf(folder: Path) -> Path:
    import torch
    from ghostbook.training.gguf_writer import write_gguf
    from ghostbook.training.model import ModelShape, build_model, llama_config
    from ghostbook.training.tokenizer import special_ids, train_tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    # 1024: enough words that start with a space
    tok = train_tokenizer([(stdlib / name).read_text() for name in TEXTS_FROM], vocab_size=1024)
    tok_path = folder / "tokenizer.json"
    tok.save(str(tok_path))
    vocab = tok.get_vocab_size()
    special = set(special_ids(tok).values())
    words = [i for i in range(vocab) if i not in special and WORD.match(tok.decode([i]))
             and not keyword.iskeyword(tok.decode([i]).strip())]
    random.Random(0).shuffle(words)
    ops = [i for i in range(vocab) if tok.decode([i]) in OPERATORS]
    assert len(words) > 64 and len(ops) >= 6, "too few word and operator tokens for a long cycle"
    # words joined by binary operators, so the line parses after every word (the server keeps no more of
    # a suggestion than parses, issue 15): `width + sorted_key or value ...`
    # it starts (after any token outside it) with a word whose first letters begin no builtin name, so
    # typing them opens no intellisense popup (which hides the ghost text)
    names = [n.lower() for n in dir(builtins)] + ["area", "math"]
    words.sort(key=lambda t: any(n.startswith(tok.decode([t]).strip()[:2].lower()) for n in names))
    cycle = [t for pair in zip(words, ops, strict=False) for t in pair]
    following = {t: cycle[(k + 1) % len(cycle)] for k, t in enumerate(cycle)}
    shape = ModelShape(vocab_size=vocab, hidden_size=vocab, intermediate_size=32, num_hidden_layers=1,
                       num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=1024,
                       tie_word_embeddings=False)
    model = build_model(llama_config(shape, special_ids(tok)))
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith(("o_proj.weight", "down_proj.weight")):
                param.zero_()
        model.model.embed_tokens.weight.copy_(torch.eye(vocab))
        head = torch.zeros(vocab, vocab)
        for t in range(vocab):
            head[following.get(t, cycle[0]), t] = 1.0  # any other token: the cycle's first word
        model.lm_head.weight.copy_(head)
    return write_gguf(model, tok_path, folder / "cycle-ghostbook.gguf", "f32", name="ghostbook-cycle")
