"""A Telegram bot with turngraph memory, by long polling.

    .venv/bin/python examples/telegram_bot.py --token "$TELEGRAM_BOT_TOKEN" --owner-chat 123456
    .venv/bin/python examples/telegram_bot.py --demo      # against a local fake Bot API

Each message from the owner's private chat becomes a turn: the conversation's recent history
is recalled from turngraph, ``respond`` writes the reply (replace it with your model call),
the reply is delivered in the right chat and topic, and the turn is saved only after Telegram
confirmed every chunk. ``--demo`` starts turngraph's local fake of the Bot API, sends the bot
two messages (the second handled by a fresh poll over the same database), and prints what the
bot sent: the second reply recalls the first message.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any

import turngraph
from turngraph.agent.fake_telegram import fake_telegram
from turngraph.agent.runner import RespondArgs, TurnRunner
from turngraph.agent.telegram import TelegramBotAPI, TelegramTurnAdapter


async def respond(args: RespondArgs) -> str:
    """Replace this with your model call: ``args.input`` is the message, ``args.history``
    the conversation so far (oldest first), ``args.extra["message"].reply_text`` the message
    it answers, and ``await args.acknowledge("...")`` sends a quick note first."""
    await args.acknowledge("Thinking...")
    seen = len(args.history)
    reply = f"You said: {args.input}\n(I remember {seen} earlier turn{'s' * (seen != 1)}"
    if args.history:
        reply += f"; the first began {args.history[0].content.splitlines()[0]!r}"
    return reply + ".)"


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
        memory = db.memory(args.memory, create=True)
        runner = TurnRunner(namespace="telegram-bot", memory=memory, ttl_seconds=30 * 86400)
        api = TelegramBotAPI(args.token, base_url=args.base_url)
        try:
            return await poll(
                TelegramTurnAdapter(runner, api, owner_chat=args.owner_chat), api, once=args.once
            )
        finally:
            await api.aclose()


def _message(update_id: int, text: str) -> dict[str, Any]:
    chat = {"id": 8587, "type": "private"}
    sender = {"id": 8587, "is_bot": False, "first_name": "Ana"}
    message = {"message_id": update_id, "chat": chat, "from": sender, "text": text}
    return {"update_id": update_id, "message": message}


def demo(args: argparse.Namespace) -> int:
    with fake_telegram() as fake:
        args.token, args.base_url, args.owner_chat, args.once = (
            fake.token,
            fake.base_url,
            "8587",
            True,
        )
        handled = 0
        # Two polls, as two runs of the bot: the second message is answered from memory.
        for update_id, text in [(1, "Remind me to water the plants."), (2, "What did I ask?")]:
            fake.updates[:] = [_message(update_id, text)]
            handled += asyncio.run(main_async(args))
        for params in fake.sent():
            print(f"sent to {params['chat_id']}: {params['text']!r}")
        return 0 if handled == 2 and len(fake.sent()) == 4 else 1


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
