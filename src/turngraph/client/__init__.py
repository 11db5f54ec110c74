"""Clients of a turngraph server's graph API: ``from turngraph.client import Client``."""

from turngraph.client.remote import AsyncClient, AsyncRemoteMemory, Client, RemoteMemory

__all__ = ["AsyncClient", "AsyncRemoteMemory", "Client", "RemoteMemory"]
