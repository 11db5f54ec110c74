"""The managed chat loop: ``Memory.chat(message)`` stores the user's message as a turn,
builds the context the memory holds for it (standing instructions, current facts, passages),
asks an OpenAI-compatible chat-completions model for the reply with that context and the
session's recent turns, and stores the reply as an assistant turn.

The model is the one the database's settings name (``llm_base_url``, ``llm_model``,
``llm_api_key``, ``llm_timeout_seconds``; ``TURNGRAPH_LLM_*`` for the server), or the one a
call names with ``model``. A model that fails, answers out of shape or runs past its time
raises :class:`~turngraph.errors.ModelError`: the user's message stays stored (the error
names its turn), and no reply is made up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import httpx

from turngraph.config import Settings
from turngraph.core.validate import required_text
from turngraph.errors import ModelError, NotFoundError, ValidationError
from turngraph.models import ChatResult

if TYPE_CHECKING:
    from turngraph.core.memory import Memory

HISTORY_TURNS = 12  # the session's newest turns the model is shown, besides the context
CONTEXT_TOKENS = 1200  # the context's budget in the prompt (an estimate, as context() counts)
REPLY_TOKENS = 1024
SYSTEM = (
    "You are a helpful assistant with a long-term memory. What the memory holds about this "
    "conversation follows: follow its standing instructions, treat its current facts as true "
    "now unless the user says otherwise, and use its passages as evidence. Do not mention the "
    "memory itself."
)


class ChatModel:
    """One OpenAI-compatible chat-completions endpoint (``{base_url}/chat/completions``)."""

    def __init__(
        self, *, base_url: str, model: str, api_key: str | None = None, timeout: float = 30.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    @classmethod
    def from_settings(cls, settings: Settings, model: str | None = None) -> ChatModel:
        if not settings.llm_base_url or not (model or settings.llm_model):
            raise ValidationError(
                "chat needs a chat-completions model: set llm_base_url and llm_model in the "
                "settings (TURNGRAPH_LLM_BASE_URL and TURNGRAPH_LLM_MODEL for the server)",
                field="model",
            )
        return cls(
            base_url=settings.llm_base_url,
            model=model or settings.llm_model or "",
            api_key=settings.llm_api_key,
            timeout=settings.llm_timeout_seconds,
        )

    def reply(self, messages: list[dict[str, str]]) -> str:
        """The model's answer to ``messages``; ModelError when there is none to give."""
        payload = {"model": self.model, "max_tokens": REPLY_TOKENS, "messages": messages}
        try:
            with httpx.Client(timeout=self.timeout) as http:
                response = http.post(
                    f"{self.base_url}/chat/completions", json=payload, headers=self._headers
                )
        except httpx.TimeoutException:
            raise ModelError(
                f"the model did not answer within {self.timeout:g} s", model=self.model
            ) from None
        except httpx.HTTPError as exc:
            raise ModelError(f"the model could not be reached: {exc}", model=self.model) from None
        if response.status_code // 100 != 2:
            raise ModelError(
                f"the model answered {response.status_code}: {response.text[:200]}",
                model=self.model,
                status=response.status_code,
            )
        try:
            text = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ModelError(
                "the model's answer is not a chat completion (no choices[0].message.content)",
                model=self.model,
            ) from None
        if not isinstance(text, str) or not text.strip():
            raise ModelError("the model answered with no text", model=self.model)
        return text.strip()


class ChatOps:
    """``Memory.chat``: one turn of the managed chat loop."""

    def chat(
        self,
        message: str,
        *,
        session_id: str | None = None,
        model: str | None = None,
        speaker: str | None = None,
        labels: Sequence[str] = (),
    ) -> ChatResult:
        """Answer ``message`` with the memory: store it as the user's turn (``session_id``,
        else a new session; ``speaker`` and ``labels`` as for :meth:`remember`), build its
        context (:meth:`context`), ask the chat model (the settings', or ``model``) with the
        context and the session's recent turns, store the reply as the assistant's turn, and
        return both with what was used. Raises ValidationError (nothing stored) for bad input
        or no model configured, and ModelError when the model gives no reply: the user's turn
        is then kept and named in the error."""
        mem = cast("Memory", self)
        text = required_text(message, field="message", limit=mem._limits.content_hard_chars)
        chat_model = ChatModel.from_settings(mem._store.settings, model)
        if session_id is not None:
            mem.get_session(session_id)  # NotFoundError before anything is written
        # Asked before the message is stored: the message is no context for itself.
        context = mem.context(text, session_id=None, max_tokens=CONTEXT_TOKENS)
        history = self._history(session_id)
        said = mem.remember(
            text, session_id=session_id, role="user", speaker=speaker, labels=labels
        )
        messages = [{"role": "system", "content": f"{SYSTEM}\n\n{context.text}".strip()}]
        messages += [*history, {"role": "user", "content": text}]
        try:
            reply = chat_model.reply(messages)
        except ModelError as exc:
            raise ModelError(
                f"{exc}; your message was stored as {said.turn_id}, with no reply",
                **exc.fields,
                turn_id=said.turn_id,
                session_id=said.session_id,
            ) from None
        answered = mem.remember(reply, session_id=said.session_id, role="assistant", labels=labels)
        return ChatResult(
            reply=reply,
            session_id=said.session_id,
            turn_id=said.turn_id,
            reply_turn_id=answered.turn_id,
            memory_updates=said.extraction,
            context=context,
            model=chat_model.model,
        )

    def _history(self, session_id: str | None) -> list[dict[str, str]]:
        """The session's newest turns as chat messages, oldest first."""
        if session_id is None:
            return []
        mem = cast("Memory", self)
        try:
            count = mem.get_session(session_id).turn_count
        except NotFoundError:
            return []
        # turn_count counts every turn ever added; deleted ones leave the page short, so
        # the window steps back until it holds enough turns or reaches the start.
        offset = max(0, count - HISTORY_TURNS)
        turns = mem.list_turns(session_id, limit=500, offset=offset).turns
        while len(turns) < HISTORY_TURNS and offset > 0:
            offset = max(0, offset - 4 * HISTORY_TURNS)
            turns = mem.list_turns(session_id, limit=500, offset=offset).turns
        return [
            {"role": "assistant" if t.role == "assistant" else "user", "content": t.content}
            for t in turns[-HISTORY_TURNS:]
        ]
