"""Fill-in-the-middle prompt templates per model family, PSM and SPM: the one place FIM layouts live,
for the editor (`completion.prompt`), eval and training (`training.fim`, `training.data`).

Special tokens enter the prompt as token ids looked up in the vocabulary (`lookup(text) -> id`),
never by tokenising their text: a tokenizer that does not know them would split `<fim_prefix>` into
ordinary pieces and the model would see garbage. Prefix and suffix arrive already encoded, so token
healing can shorten the prefix first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

# Ghostbook's own special tokens (its tokenizer is trained with them: `training.tokenizer`)
EOT = "<|endoftext|>"
FIM_PREFIX = "<fim_prefix>"
FIM_SUFFIX = "<fim_suffix>"
FIM_MIDDLE = "<fim_middle>"
FIM_PAD = "<fim_pad>"
SPECIAL_TOKENS = [EOT, FIM_PREFIX, FIM_SUFFIX, FIM_MIDDLE, FIM_PAD]

PLAIN = "plain"  # the family of a model without FIM tokens
PREFIX = "\x00prefix"  # placeholders inside a layout
SUFFIX = "\x00suffix"

Layout = Literal["psm", "spm"]
Lookup = Callable[[str], "int | None"]


class TemplateError(ValueError):
    """The vocabulary lacks a special token the template needs, or the layout is not supported."""


@dataclass(frozen=True)
class FimTemplate:
    """`psm`/`spm` list special-token texts and the PREFIX/SUFFIX placeholders in prompt order.

    `stop` names special tokens that end the middle (those missing from a vocabulary are ignored).
    `default_layout`: SPM puts the suffix first, so typing at the cursor only changes the prompt's end
    and llama.cpp reuses nearly all of its KV cache; used where the model was trained on it.
    `prefix_space`: the family's text form puts a space between the prefix token and the prefix
    (CodeLlama's `<PRE> {prefix} <SUF>{suffix} <MID>`: the prefix is encoded as if after a space,
    the way SentencePiece adds its dummy prefix); callers encode `" " + prefix` when the tokenizer
    does not add that space itself.
    """

    family: str
    psm: tuple[str, ...]
    spm: tuple[str, ...] | None
    stop: tuple[str, ...]
    bos: str | None = None
    prefix_space: bool = False
    default_layout: Layout = "psm"

    def layout(self, mode: Layout | None = None) -> tuple[str, ...]:
        mode = mode or self.default_layout
        if mode == "spm":
            if self.spm is None:
                raise TemplateError(f"{self.family} has no suffix-prefix-middle layout")
            return self.spm
        return self.psm

    def special_tokens(self) -> list[str]:
        """Every special token the layouts use (the ones that must exist in the vocabulary)."""
        seen: list[str] = [self.bos] if self.bos else []
        for part in (*self.psm, *(self.spm or ())):
            if part not in (PREFIX, SUFFIX) and part not in seen:
                seen.append(part)
        return seen


def _std(family: str, pre: str, suf: str, mid: str, stop: tuple[str, ...], spm: bool = True,
         bos: str | None = None) -> FimTemplate:
    return FimTemplate(family, (pre, PREFIX, suf, SUFFIX, mid), (pre, suf, SUFFIX, mid, PREFIX) if spm else None,
                       stop, bos)


TEMPLATES: dict[str, FimTemplate] = {
    # Ghostbook's own model: StarCoder tokens; its SPM variant puts the suffix first (training/fim.py),
    # trained jointly with PSM, and is the default for the KV-cache reuse it gives
    "ghostbook": FimTemplate("ghostbook", (FIM_PREFIX, PREFIX, FIM_SUFFIX, SUFFIX, FIM_MIDDLE),
                             (FIM_SUFFIX, SUFFIX, FIM_PREFIX, PREFIX, FIM_MIDDLE),
                             (EOT, FIM_PAD, FIM_PREFIX, FIM_SUFFIX, FIM_MIDDLE),
                             default_layout="spm"),
    "starcoder": _std("starcoder", "<fim_prefix>", "<fim_suffix>", "<fim_middle>",
                      ("<|endoftext|>", "<fim_pad>", "<file_sep>")),
    "santacoder": _std("santacoder", "<fim-prefix>", "<fim-suffix>", "<fim-middle>", ("<|endoftext|>", "<fim-pad>")),
    "qwen2.5-coder": _std("qwen2.5-coder", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>",
                          ("<|endoftext|>", "<|fim_pad|>", "<|file_sep|>", "<|repo_name|>", "<|im_end|>"),
                          spm=False),
    "codegemma": _std("codegemma", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>",
                      ("<|file_separator|>", "<eos>", "<|fim_prefix|>"), spm=False, bos="<bos>"),
    "deepseek-coder": _std("deepseek-coder", "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>",
                           ("<｜end▁of▁sentence｜>", "<|EOT|>"), spm=False, bos="<｜begin▁of▁sentence｜>"),
    "codellama": FimTemplate("codellama", ("<PRE>", PREFIX, "<SUF>", SUFFIX, "<MID>"),
                             ("<PRE>", "<SUF>", SUFFIX, "<MID>", PREFIX), ("<EOT>", "</s>"), bos="<s>",
                             prefix_space=True),
    "codegen2": FimTemplate("codegen2", (PREFIX, "<mask_1>", SUFFIX, "<|endoftext|>", "<sep>", "<mask_1>"), None,
                            ("<eom>", "<|endoftext|>")),
    # a model without FIM tokens (a base or chat model): it continues the text above the cursor, the
    # code below it is not in the prompt (while a notebook is written there is none)
    PLAIN: FimTemplate(PLAIN, (PREFIX,), None,
                       ("<|endoftext|>", "<|im_end|>", "</s>", "<|eot_id|>", "<|end_of_text|>", "<eos>")),
}


def get_template(family: str) -> FimTemplate:
    try:
        return TEMPLATES[family]
    except KeyError:
        raise TemplateError(f"unknown model family {family!r}; known: {', '.join(sorted(TEMPLATES))}") from None


def special_id(lookup: Lookup, text: str) -> int:
    token = lookup(text)
    if token is None:
        raise TemplateError(f"the vocabulary has no special token {text!r}")
    return token


def build_prompt(template: FimTemplate, prefix_ids: Sequence[int], suffix_ids: Sequence[int], lookup: Lookup,
                 mode: Layout | None = None) -> list[int]:
    """Prompt token ids: the layout with special tokens as ids and the encoded prefix and suffix."""
    ids: list[int] = [special_id(lookup, template.bos)] if template.bos else []
    for part in template.layout(mode):
        if part == PREFIX:
            ids.extend(prefix_ids)
        elif part == SUFFIX:
            ids.extend(suffix_ids)
        else:
            ids.append(special_id(lookup, part))
    return ids


def stop_ids(template: FimTemplate, lookup: Lookup, eos: int | None = None) -> frozenset[int]:
    """Ids that end generation: the template's stop tokens present in the vocabulary, plus `eos`."""
    ids = {token for token in (lookup(text) for text in template.stop) if token is not None}
    if eos is not None and eos >= 0:
        ids.add(eos)
    return frozenset(ids)


def fit(prefix: list[int], suffix: list[int], budget: int) -> tuple[list[int], list[int]]:
    """Trim the prefix from the left and the suffix from the right to `budget` tokens, keeping
    up to two thirds of the budget for the prefix (the nearer context matters most)."""
    if len(prefix) + len(suffix) <= budget:
        return prefix, suffix
    budget = max(0, budget)
    keep_suffix = min(len(suffix), max(budget // 3, budget - len(prefix)))
    keep_prefix = budget - keep_suffix
    return prefix[len(prefix) - keep_prefix :] if keep_prefix else [], suffix[:keep_suffix]


def _ghostbook(mode: Layout, pre: int, suf: int, mid: int, prefix: list[int], suffix: list[int]) -> list[int]:
    ids = {FIM_PREFIX: pre, FIM_SUFFIX: suf, FIM_MIDDLE: mid}
    return build_prompt(TEMPLATES["ghostbook"], prefix, suffix, ids.get, mode)


def psm(pre: int, suf: int, mid: int, prefix: list[int], suffix: list[int]) -> list[int]:
    """Ghostbook's prefix-suffix-middle prompt: `<fim_prefix> P <fim_suffix> S <fim_middle>`."""
    return _ghostbook("psm", pre, suf, mid, prefix, suffix)


def spm(pre: int, suf: int, mid: int, prefix: list[int], suffix: list[int]) -> list[int]:
    """Ghostbook's suffix-prefix-middle prompt: `<fim_suffix> S <fim_prefix> P <fim_middle>`."""
    return _ghostbook("spm", pre, suf, mid, prefix, suffix)
