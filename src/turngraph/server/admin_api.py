"""Admin routes."""

from fastapi import APIRouter

router = APIRouter(prefix="/v1/admin", tags=["admin"])
