"""Model shapes and presets: small `LlamaForCausalLM`s that llama.cpp runs."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from transformers import LlamaConfig, LlamaForCausalLM


@dataclass(frozen=True)
class ModelShape:
    """Hyper-parameters of a Llama-architecture model."""

    vocab_size: int = 4096
    hidden_size: int = 192
    intermediate_size: int = 512
    num_hidden_layers: int = 6
    num_attention_heads: int = 3
    num_key_value_heads: int = 3
    max_position_embeddings: int = 1024
    rope_theta: float = 10000.0
    rms_norm_eps: float = 1e-5
    tie_word_embeddings: bool = True


@dataclass(frozen=True)
class Preset:
    """A full training recipe."""

    shape: ModelShape = field(default_factory=ModelShape)
    vocab_size: int = 4096
    seq_len: int = 512
    batch_size: int = 16
    lr: float = 2e-3
    min_lr: float = 1e-4
    warmup_steps: int = 100
    max_steps: int = 1800
    # Earlier ends of a run grown in stages: each is a full WSD schedule, and the next stage resumes
    # from its end (re-warming), so a shipped model trained that way is reproduced step for step.
    stages: tuple[int, ...] = ()
    decay_frac: float = 0.25
    # Share of documents drawn from function-level documents during the decay (annealing) phase,
    # and before it (warm-up and stable phases).
    anneal_functions: float = 0.5
    functions_share: float = 0.3
    # Line-shaped FIM spans start at code lines, not docstring or comment lines.
    code_lines: bool = True
    # Share of FIM examples cut as someone writing (`fim.writing_span`: nothing after the cursor).
    writing_share: float = 0.0
    # Where the writing spans are cut: "all" documents, or "notebooks" only (library code keeps its
    # spans, whose suffixes HumanEval-like infilling reads).
    writing_in: str = "all"
    # Steps before this one were trained with the first recipe (any line, no function-level documents
    # before the decay): a staged run replays it for its earlier stages.
    recipe_from: int = 0
    # PyPI packages added to a freshly built corpus (`ghostbook train corpus --extend`), each file
    # `extra_repeat` times: small, HumanEval-like algorithm and utility code, up-weighted.
    extra_packages: tuple[str, ...] = ()
    extra_repeat: int = 1
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    seed: int = 1234


# Permissively licensed algorithm and utility packages (licences checked from their metadata when the
# corpus is extended; files that share long n-grams with HumanEval are dropped like any other).
EXTRA_PACKAGES = ("algorithms==1.0.1", "algorithmx==2.0.3", "boltons==26.2.0", "cachetools==8.0.2", "funcy==2.1",
                  "humanize==4.17.0", "inflection==0.5.1", "leetcode-solutions==0.1.0", "more-itertools==11.2.1",
                  "pydash==8.1.0", "pydsa==0.14", "pygorithm==1.0.4", "python-algorithms==0.2.2",
                  "python-dateutil==4.0.0", "python-string-utils==1.0.0", "sortedcontainers==2.4.0",
                  "textdistance==4.6.3", "toolz==1.2.0")

PRESETS: dict[str, Preset] = {
    # The shipped model: 1800 steps, extended to 2600, 8000, 12000, 15000, then 18500 (see its MODEL_CARD.md).
    "default": Preset(max_steps=18500, stages=(1800, 2600, 8000, 12000, 15000), recipe_from=8000,
                      extra_packages=EXTRA_PACKAGES, extra_repeat=3),
    # For a GPU (`gpu_train.sh`): ~16M parameters, 32k tokens a step; run it with `--budget-minutes`,
    # which sets max_steps from the measured speed. Not measured yet: no GPU was lent so far.
    "gpu": Preset(
        shape=ModelShape(hidden_size=384, intermediate_size=1024, num_hidden_layers=8, num_attention_heads=6,
                         num_key_value_heads=6),
        batch_size=64, lr=1.5e-3, warmup_steps=200, max_steps=20_000, decay_frac=0.2,
    ),
    "tiny": Preset(
        shape=ModelShape(vocab_size=512, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=256),
        vocab_size=512, seq_len=128, batch_size=4, lr=3e-3, warmup_steps=2, max_steps=20,
    ),
}


def llama_config(shape: ModelShape, special: dict[str, int]) -> LlamaConfig:
    """A `LlamaConfig` for `shape` with the tokenizer's special-token ids (no BOS used)."""
    kwargs = asdict(shape)
    return LlamaConfig(
        **kwargs,
        hidden_act="silu",
        attention_bias=False,
        mlp_bias=False,
        bos_token_id=special["<|endoftext|>"],
        eos_token_id=special["<|endoftext|>"],
        pad_token_id=special["<fim_pad>"],
    )


def build_model(config: LlamaConfig) -> LlamaForCausalLM:
    """A randomly initialised model in float32."""
    return LlamaForCausalLM(config)


def count_params(model: LlamaForCausalLM) -> int:
    """Unique parameters (tied embeddings counted once)."""
    return sum(p.numel() for p in model.parameters())
