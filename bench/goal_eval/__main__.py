"""Everyday goals scored by what happened: `python -m bench.goal_eval [--split frozen|dev|all] ...`.

Each case's world (mail, calendars, memories, contacts, shop, restaurants, time zone, "now") is
seeded into real local servers; its turns run through Deputy as the bot would run them (real
runner, guard and executor); the case is judged only by what then happened there and by what
Deputy told the user. `--model local` is the local model Deputy runs without a key (built and
started as `deputy run` does); `env` the model the environment configures (OPENAI_BASE_URL,
OPENAI_API_KEY, DEPUTY_MODEL); `scripted` plays a few cases right and wrong (for tests).
"""

from __future__ import annotations

import argparse
import logging
import datetime
import sys
import tempfile
from pathlib import Path

from bench.goal_eval.corpus import frozen_digest, load
from bench.goal_eval.evaluate import evaluate, interleaved
from bench.goal_eval.report import print_table, write_json
from bench.goal_eval.scripted import scripted_model
from bench.goal_eval.services import EvalServices


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.goal_eval", description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("frozen", "dev", "all"), default="frozen")
    parser.add_argument("--category", help="only this category (or several, comma-separated)")
    parser.add_argument("--limit", type=int, help="at most this many cases per category")
    parser.add_argument("--skip", type=int, default=0,
                        help="leave out the first N cases of each category (those an earlier run with --limit N scored)")
    parser.add_argument("--model", choices=("scripted", "local", "env"), default="local")
    parser.add_argument("--approve", choices=("asked", "never"), default="asked",
                        help="asked: the user approves cards in cases that do not expect one (default); never")
    parser.add_argument("--model-timeout", type=float,
                        help="seconds a model call may take (default: Deputy's own setting); raise it on a loaded machine")
    parser.add_argument("--out", type=Path, default=Path("goal_eval_results.json"), help="where the JSON goes")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    cases = interleaved(load(args.split, args.category, args.limit, skip=args.skip))
    if not cases:
        print("No cases match.", file=sys.stderr)
        return 2
    local, timeout = None, None
    if args.model == "scripted":
        model_name = "scripted"

        def model_for(case):
            return scripted_model(case.id)
    else:
        from deputy.local_model.model import ensure_local_model
        from deputy.settings import Settings
        from deputy.apps.agent_worker import build_model

        settings = Settings()
        if args.model == "local":
            local = ensure_local_model(settings.cache_path(), lambda text: print(text, flush=True),
                                       gguf=settings.local_gguf, threads=settings.local_threads)
            settings = Settings(**local.env())  # exactly what `deputy run` gives the worker
        if args.model_timeout:
            settings = settings.model_copy(update={"model_timeout": args.model_timeout})
        if local is not None:
            from deputy.local_model.warmup import warm_up

            # As `deputy run` does: the first goal starts with the instructions already read.
            print(f"Warm-up: {warm_up(local.base_url, local.model, settings.max_tools):.0f} s", flush=True)
        model, timeout = build_model(settings), settings.model_timeout
        model_name = f"{settings.model} at {settings.openai_base_url or 'OpenAI'}"

        def model_for(case):
            return model
    meta = {"split": args.split, "category": args.category, "limit": args.limit, "skip": args.skip, "model": model_name,
            "approve": args.approve, "model_timeout": timeout, "cases": len(cases), "frozen_sha256": frozen_digest(),
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    print(f"Outcome evaluation: {len(cases)} cases ({args.split}), model {model_name}", flush=True)
    deputy_log = logging.getLogger("deputy")
    level = deputy_log.level
    if any(case.split == "frozen" for case in cases):
        # Deputy's own warnings name what a case did (an action that failed, an address): not on the screen.
        deputy_log.setLevel(logging.ERROR)
    try:
        with tempfile.TemporaryDirectory(prefix="goal-eval-") as root:
            services = EvalServices(Path(root)).start()
            try:
                results = evaluate(cases, services, model_for, approve=args.approve,
                                   done=lambda so_far: write_json(so_far, args.out, meta))
            finally:
                services.stop()
    finally:
        deputy_log.setLevel(level)
        if local is not None:
            local.stop()
    print_table(results, sys.stdout)
    print(f"\nResults: {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
