"""The graph API (``/v1/memories/...``)."""

from fastapi import APIRouter

router = APIRouter(prefix="/v1", tags=["graph API"])
