"""A Telegram bot with turngraph memory, by long polling.

    .venv/bin/python examples/telegram_bot.py --token "$TELEGRAM_BOT_TOKEN" --owner-chat 123456
    .venv/bin/python examples/telegram_bot.py --demo      # against a local fake Bot API

Each message from the owner's private chat becomes a turn: the conversation's recent history
is recalled from turngraph, ``respond`` writes the reply (replace it with your model call),
the reply is delivered in the right chat and topic, and the turn is saved only after Telegram
confirmed every chunk. ``--demo`` starts the test suite's local fake of the Bot API with one
message waiting, handles it, and prints what the bot sent.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

import turngraph
from turngraph.agent.runner import RespondArgs, TurnRunner
from turngraph.agent.telegram import TelegramBotAPI, TelegramTurnAdapter


async def respond(args: RespondArgs) -> str:
    """Replace this with your model call: ``args.input`` is the message, ``args.history``
    the conversation so far (oldest first), ``args.extra["message"].reply_text`` the message
    it answers, and ``await args.acknowledge("...")`` sends a quick note first."""
    await args.acknowledge("Thinking...")
    seen = len(args.history)
    return f"You said: {args.input}\n(I remember {seen} earlier turn{'s' * (seen != 1)}.)"


async def poll(adapter: TelegramTurnAdapter, api: TelegramBotAPI, *, once: bool) -> int:
    offset: int | None = None
    handled = 0
    while True:
        updates = await api.get_updates(offset, timeout=0 if once else 30)
        for update in updates:
            offset = int(update["update_id"]) + 1
            outcome = await adapter.handle(update, respond)
            handled += outcome.status == "handled"
            print(
                f"update {update['update_id']}: {outcome.status}"
                + (f" ({outcome.reason})" if outcome.reason else "")
            )
        if once:
            return handled


async def main_async(args: argparse.Namespace) -> int:
    with turngraph.open(args.db) as db:
        try:
            memory = db.memory(args.memory)
        except turngraph.NotFoundError:
            memory = db.create_memory(args.memory)
        runner = TurnRunner(namespace="telegram-bot", memory=memory, ttl_seconds=30 * 86400)
        api = TelegramBotAPI(args.token, base_url=args.base_url)
        try:
            return await poll(
                TelegramTurnAdapter(runner, api, owner_chat=args.owner_chat), api, once=args.once
            )
        finally:
            await api.aclose()


def demo(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.fakes.telegram_api import fake_telegram

    with fake_telegram() as fake:
        fake.updates.append(
            {
                "update_id": 1,
                "message": {
                    "message_id": 7,
                    "chat": {"id": 8587, "type": "private"},
                    "from": {"id": 8587, "is_bot": False, "first_name": "Ana"},
                    "text": "Remind me to water the plants.",
                },
            }
        )
        args.token, args.base_url, args.owner_chat, args.once = (
            fake.token,
            fake.base_url,
            "8587",
            True,
        )
        handled = asyncio.run(main_async(args))
        for params in fake.sent():
            print(f"sent to {params['chat_id']}: {params['text']!r}")
        return 0 if handled == 1 and len(fake.sent()) == 2 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--token", default=os.environ.get("TELEGRAM_BOT_TOKEN"))
    parser.add_argument("--owner-chat", default=os.environ.get("TELEGRAM_OWNER_CHAT"))
    parser.add_argument("--base-url", default="https://api.telegram.org")
    parser.add_argument("--db", default="./turngraph.db")
    parser.add_argument("--memory", default="telegram")
    parser.add_argument("--once", action="store_true", help="handle waiting updates and stop")
    parser.add_argument("--demo", action="store_true", help="run against a local fake Bot API")
    args = parser.parse_args()
    if args.demo:
        if args.db == "./turngraph.db":
            import tempfile

            args.db = str(Path(tempfile.mkdtemp()) / "demo.db")
        return demo(args)
    if not args.token:
        parser.error("--token (or TELEGRAM_BOT_TOKEN) is required")
    return 0 if asyncio.run(main_async(args)) >= 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
