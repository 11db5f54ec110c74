"""Storage backends behind the :class:`~turngraph.store.base.Store` protocol."""
