"""TRL's `GRPOTrainer` trains with the library's rows and reward function: a
tiny model and tokenizer made on the spot (random weights, nothing fetched), two
steps on the CPU, so that a change in TRL's calling convention fails here."""

from pathlib import Path
from typing import Any, List

import pytest

datasets = pytest.importorskip("datasets")
tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")
trl = pytest.importorskip("trl")

from mathy_envs.envs import PolySimplify  # noqa: E402
from mathy_envs.text.grpo import grpo_reward, grpo_rows  # noqa: E402

CHARACTERS = [chr(code) for code in range(32, 127)] + ["\n"]


def _tokenizer() -> Any:
    """A character-level tokenizer of printable ASCII."""
    vocab = {"[PAD]": 0, "[UNK]": 1, "[EOS]": 2}
    for char in CHARACTERS:
        vocab.setdefault(char, len(vocab))
    model = tokenizers.models.WordLevel(vocab, unk_token="[UNK]")
    tokenizer = tokenizers.Tokenizer(model)
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Split(
        tokenizers.Regex("[\\s\\S]"), behavior="isolated"
    )
    tokenizer.decoder = tokenizers.decoders.Fuse()
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token="[PAD]", unk_token="[UNK]", eos_token="[EOS]"
    )


def test_grpo_trainer_trains_on_the_rows_with_the_reward(tmp_path: Path) -> None:
    tokenizer = _tokenizer()
    assert tokenizer.decode(tokenizer("2y + 7x")["input_ids"]) == "2y + 7x"
    config = transformers.GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=2048,
        n_embd=32,
        n_layer=1,
        n_head=2,
        bos_token_id=tokenizer.eos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = transformers.GPT2LMHeadModel(config)
    env = PolySimplify()
    rows = grpo_rows(env, 4, seed=0)
    reward = grpo_reward(env)
    seen: List[float] = []

    def mathy_check(completions: List[Any], problem: List[str], **kwargs: Any) -> List[float]:
        # A second reward function: what TRL passes, scored again by hand.
        scores = reward(completions=completions, problem=problem, max_moves=kwargs["max_moves"])
        seen.extend(scores)
        return scores

    trainer = trl.GRPOTrainer(
        model=model,
        reward_funcs=[reward, mathy_check],
        args=trl.GRPOConfig(
            output_dir=str(tmp_path),
            per_device_train_batch_size=2,
            num_generations=2,
            max_completion_length=8,
            max_steps=2,
            learning_rate=1e-4,
            logging_steps=1,
            report_to="none",
            use_cpu=True,
            save_strategy="no",
        ),
        train_dataset=datasets.Dataset.from_list(rows),
        processing_class=tokenizer,
    )
    trainer.train()
    assert trainer.state.global_step == 2
    logged = [entry for entry in trainer.state.log_history if "rewards/mathy_derivation/mean" in entry]
    assert len(logged) == 2  # the library's reward function, called at each step
    assert seen and all(score in (0.0, 1.0) for score in seen)
